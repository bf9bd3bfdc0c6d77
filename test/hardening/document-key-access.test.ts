import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCliProcess, startTestServer, type TestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";
import { type OwnerClient, signedInOwner } from "../owner/owner-client.ts";

describeEngines("document key access", (engine) => {
  let srv: TestServer;
  beforeAll(async () => {
    // Behind a trusted proxy (the test client), X-Forwarded-For gives each call its own address.
    srv = await startTestServer(
      {
        DOCCHAT_TRUSTED_PROXIES: "127.0.0.1/32",
        DOCCHAT_ACCOUNT_MAX_DOCUMENTS: "3",
        DOCCHAT_ACCOUNT_MAX_BYTES: "4096",
      },
      { engine },
    );
  }, 60_000);
  afterAll(() => srv.stop());

  const DOCS = "/api/v1/documents";
  const auth = (key: string, ip = "203.0.113.9") => ({ authorization: `Bearer ${key}`, "x-forwarded-for": ip });
  const push = (key: string, body: Record<string, unknown>, ip?: string) =>
    fetch(`${srv.url}${DOCS}`, {
      method: "POST",
      headers: { ...auth(key, ip), "content-type": "application/json" },
      body: JSON.stringify({ train: false, ...body }),
    });
  const codeOf = async (r: Response) => ((await r.json()) as { error: { code: string; param?: string } }).error;

  describe("what the public deployment key may do with documents", () => {
    test("by default the key pushes and reads its push's status, but cannot list or delete documents", async () => {
      const { apiKey } = await srv.seed();
      const pushed = await push(apiKey, { content: "Opening hours are nine to five.", name: "hours.txt" });
      expect(pushed.status).toBe(201);
      const doc = (await pushed.json()) as { id: string; status_url: string };
      expect((await fetch(`${srv.url}${doc.status_url}`, { headers: auth(apiKey) })).status).toBe(200);
      const list = await fetch(`${srv.url}${DOCS}`, { headers: auth(apiKey) });
      expect(list.status).toBe(403);
      expect((await codeOf(list)).code).toBe("documents_access_disabled");
      const del = await fetch(`${srv.url}${DOCS}/${doc.id}`, { method: "DELETE", headers: auth(apiKey) });
      expect(del.status).toBe(403);
      expect(del.headers.get("x-ratelimit-remaining")).not.toBeNull();
      expect(await srv.services.repos.documents.get(doc.id)).not.toBeNull();
    });

    test("the owner turns listing and removal on in the owner API, and the deployment shows the setting", async () => {
      const { client } = await signedInOwner(srv);
      const owner: OwnerClient = client;
      const created = await owner.post<{
        deployment: { id: string; key_manages_documents: boolean; push_enabled: boolean };
        api_key: string;
      }>("/deployments", { name: "Managed" });
      expect(created.body.deployment.key_manages_documents).toBe(false);
      expect(created.body.deployment.push_enabled).toBe(true);
      const id = created.body.deployment.id;
      const key = created.body.api_key;
      await owner.patch(`/deployments/${id}`, { published: true, key_manages_documents: true });
      const doc = (await (await push(key, { content: "Refunds within thirty days.", name: "refunds.txt" })).json()) as { id: string };
      const list = await fetch(`${srv.url}${DOCS}`, { headers: auth(key) });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { data: { id: string }[] }).data.map((d) => d.id)).toEqual([doc.id]);
      expect((await fetch(`${srv.url}${DOCS}/${doc.id}`, { method: "DELETE", headers: auth(key) })).status).toBe(200);
    });

    test("the operator's CLI switches it too: deployment update flags, shown by deployment show", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const env = { ...srv.cliEnv, DOCCHAT_LOG_LEVEL: "warn", DOCCHAT_EMBEDDER: "none" };
      const up = await runCliProcess(
        [
          "deployment",
          "update",
          deploymentId,
          "--key-manages-documents",
          "on",
          "--push-ip-allow",
          "203.0.113.0/24",
          "--push-max-documents",
          "7",
          "--push-max-bytes",
          "5000",
          "--data",
          srv.dataDir,
          "--json",
        ],
        env,
      );
      expect(up.code).toBe(0);
      const shown = await runCliProcess(["deployment", "show", deploymentId, "--data", srv.dataDir, "--json"], env);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        key_manages_documents: true,
        push_enabled: true,
        push_ip_allow: ["203.0.113.0/24"],
        push_max_documents: 7,
        push_max_bytes: 5000,
        push_share_custom: true,
      });
      expect((await fetch(`${srv.url}${DOCS}`, { headers: auth(apiKey) })).status).toBe(200);
      const bad = await runCliProcess(["deployment", "update", deploymentId, "--push", "maybe", "--data", srv.dataDir], env);
      expect(bad.code).toBe(2);
      const off = await runCliProcess(["deployment", "update", deploymentId, "--push", "off", "--data", srv.dataDir], env);
      expect(off.code).toBe(0);
      const refused = await push(apiKey, { content: "x", name: "x.txt" });
      expect(refused.status).toBe(403);
      expect((await codeOf(refused)).code).toBe("push_disabled");
    }, 30_000);

    test("pushes can be limited to a list of addresses; refused pushes don't use up the allowed pusher's limit", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      await srv.services.deployments.update(deploymentId, { pushIpAllow: ["198.51.100.0/24"] });
      for (let i = 0; i < 25; i++) {
        const r = await push(apiKey, { content: "spam", name: `spam-${i}.txt` }, "203.0.113.50");
        expect([403, 429]).toContain(r.status);
        if (r.status === 403) expect((await codeOf(r)).code).toBe("ip_restricted");
      }
      // The widget still works from anywhere the main allow-list allows: only pushes are limited.
      expect((await fetch(`${srv.url}/api/v1/widget/config`, { method: "POST", headers: auth(apiKey, "203.0.113.50") })).status).toBe(200);
      const ok = await push(apiKey, { content: "Hours: nine to five.", name: "hours.txt" }, "198.51.100.7");
      expect(ok.status).toBe(201);
      expect(ok.headers.get("x-ratelimit-remaining")).toBe("19");
    });
  });

  describe("per-account storage quotas (the owner's uploads)", () => {
    const upload = (owner: OwnerClient, deploymentId: string, name: string, text: string) => {
      const form = new FormData();
      form.set("file", new File([text], name, { type: "text/plain" }));
      form.set("train", "false");
      return owner.post(`/deployments/${deploymentId}/documents`, form);
    };

    test("an upload past the account's document count is refused with 403 storage_quota_exceeded; a replacement still fits", async () => {
      const { client, accountId } = await signedInOwner(srv);
      const first = await srv.services.deployments.create({ accountId, name: "First", published: true });
      const second = await srv.services.deployments.create({ accountId, name: "Second", published: true });
      expect((await upload(client, first.deployment.id, "one.txt", "one")).status).toBe(201);
      expect((await upload(client, first.deployment.id, "two.txt", "two")).status).toBe(201);
      expect((await upload(client, second.deployment.id, "three.txt", "three")).status).toBe(201);
      const over = await upload(client, second.deployment.id, "four.txt", "four");
      expect(over.status).toBe(403);
      expect((over.body as { error: unknown }).error).toMatchObject({ code: "storage_quota_exceeded", param: "documents" });
      // Replacing a document by name doesn't grow the count.
      expect((await upload(client, first.deployment.id, "one.txt", "one, revised")).status).toBe(201);
      expect(await srv.services.documents.list(second.deployment.id)).toHaveLength(1);
    });

    test("an upload past the account's bytes is refused before anything is stored", async () => {
      const { client, accountId } = await signedInOwner(srv);
      const { deployment } = await srv.services.deployments.create({ accountId, name: "Bytes", published: true });
      expect((await upload(client, deployment.id, "big.txt", "a".repeat(3000))).status).toBe(201);
      const over = await upload(client, deployment.id, "more.txt", "b".repeat(2000));
      expect(over.status).toBe(403);
      expect((over.body as { error: unknown }).error).toMatchObject({ code: "storage_quota_exceeded", param: "bytes" });
      expect((await srv.services.documents.list(deployment.id)).map((d) => d.name)).toEqual(["big.txt"]);
    });
  });
});

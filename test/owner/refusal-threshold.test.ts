import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { REFUSAL_TEXT } from "../../src/chat/refusal.ts";
import { runCliProcess, startTestServer, type TestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";
import { type OwnerClient, signedInOwner } from "./owner-client.ts";

describeEngines("refusal threshold", (engine) => {
  setDefaultTimeout(30_000);

  let server: TestServer;
  let owner: OwnerClient;
  let accountId: number;
  beforeAll(async () => {
    server = await startTestServer({}, { engine });
    const signed = await signedInOwner(server);
    owner = signed.client;
    accountId = signed.accountId;
  }, 60_000);
  afterAll(() => server.stop());

  interface View {
    id: string;
    refusal_threshold: number | null;
    retrieval: { mode: string; judged_by: string; default_threshold: number; effective_threshold: number };
  }

  describe("a deployment's own refusal threshold", () => {
    test("the owner API sets it, shows the retrieval mode and its default, and null goes back to the default", async () => {
      const { body: created } = await owner.post<{ deployment: View }>("/deployments", { name: "Pharmacy" });
      const id = created.deployment.id;
      expect(created.deployment.refusal_threshold).toBeNull();
      expect(created.deployment.retrieval).toEqual({
        mode: "keyword",
        judged_by: "answerability: the question's IDF-weighted words in one sentence that holds the kind of answer asked for",
        default_threshold: 0.37,
        effective_threshold: 0.37,
      });
      const set = await owner.patch<View>(`/deployments/${id}`, { refusal_threshold: 0.7 });
      expect(set.status).toBe(200);
      expect(set.body.refusal_threshold).toBe(0.7);
      expect(set.body.retrieval.effective_threshold).toBe(0.7);
      expect((await owner.get<View>(`/deployments/${id}`)).body.refusal_threshold).toBe(0.7);
      const reset = await owner.patch<View>(`/deployments/${id}`, { refusal_threshold: null });
      expect(reset.body.refusal_threshold).toBeNull();
      expect(reset.body.retrieval.effective_threshold).toBe(0.37);
    });

    test("a threshold outside 0..1 or not a number is a 400 bad_request naming the field", async () => {
      const { body: created } = await owner.post<{ deployment: View }>("/deployments", { name: "Bounds" });
      for (const bad of [1.5, -0.1, "high"]) {
        const r = await owner.patch<{ error: { code: string; message: string } }>(`/deployments/${created.deployment.id}`, {
          refusal_threshold: bad,
        });
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe("bad_request");
        expect(JSON.stringify(r.body)).toContain("refusal_threshold");
      }
    });

    test("answers are gated by the deployment's threshold: a question answered at the default is refused at 0.95", async () => {
      const { deploymentId, apiKey } = await server.seed();
      const pushed = await server.services.documents.push({
        deploymentId,
        name: "hours.txt",
        bytes: new TextEncoder().encode("The pharmacy counter is open Monday to Saturday from 8 am to 6 pm."),
        train: true,
        replace: true,
      });
      await server.services.documents.waitFor([pushed.document.id], 10_000);
      const ask = async () => {
        const res = await fetch(`${server.url}/api/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: deploymentId,
            messages: [{ role: "user", content: "Is the pharmacy counter open on Sunday?" }],
          }),
        });
        return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content;
      };
      expect(await ask()).not.toBe(REFUSAL_TEXT);
      await server.services.repos.deployments.update(deploymentId, { refusalThreshold: 0.95 });
      expect(await ask()).toBe(REFUSAL_TEXT);
    });

    test("docchat deployment update --refusal-threshold sets it, deployment show shows it, default clears it", async () => {
      const dep = (await server.services.deployments.create({ accountId, name: "CLI", published: false })).deployment;
      const env = {
        ...server.cliEnv,
        DOCCHAT_LOG_LEVEL: "silent",
        DOCCHAT_MODELS: `${server.dataDir}/no-models`,
        DOCCHAT_EMBEDDER: "none",
      };
      const updated = await runCliProcess(["deployment", "update", dep.id, "--refusal-threshold", "0.62", "--json"], env);
      expect(updated.code).toBe(0);
      const shown = JSON.parse((await runCliProcess(["deployment", "show", dep.id, "--json"], env)).stdout) as View;
      expect(shown.refusal_threshold).toBe(0.62);
      expect(shown.retrieval.mode).toBe("keyword");
      const bad = await runCliProcess(["deployment", "update", dep.id, "--refusal-threshold", "lots"], env);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr + bad.stdout).toContain("--refusal-threshold");
      await runCliProcess(["deployment", "update", dep.id, "--refusal-threshold", "default"], env);
      expect(JSON.parse((await runCliProcess(["deployment", "show", dep.id, "--json"], env)).stdout).refusal_threshold).toBeNull();
    }, 30_000);
  });
});

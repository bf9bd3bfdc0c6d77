/**
 * Security review round 3, N1 and N12: the deployment key is public wherever the widget is embedded, so what it
 * pushes can never replace, remove or reveal the owner's documents, and it has its own bounded storage share.
 */
import { describe, expect, test } from "bun:test";
import { useTestServer } from "../helpers/server.ts";
import { sqliteDb } from "../helpers/test-sql.ts";
import { type OwnerClient, signedInOwner } from "../owner/owner-client.ts";

const srv = useTestServer("sqlite", {
  DOCCHAT_PUSH_MAX_DOCUMENTS: "2",
  DOCCHAT_PUSH_MAX_BYTES: "100000",
  DOCCHAT_ACCOUNT_MAX_DOCUMENTS: "3",
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const push = (key: string, body: Record<string, unknown>) =>
  fetch(`${srv.url}/api/v1/documents`, {
    method: "POST",
    headers: { ...auth(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const errorOf = async (r: Response) => ((await r.json()) as { error: { code: string; param?: string } }).error;

interface Doc {
  id: string;
  name: string;
  origin: string;
  status: string;
  chunk_count: number;
}

async function ownerWithDeployment(): Promise<{ owner: OwnerClient; deploymentId: string; key: string }> {
  const { client, accountId } = await signedInOwner(srv);
  const { deployment, apiKey } = await srv.services.deployments.create({ accountId, name: "Help", published: true });
  return { owner: client, deploymentId: deployment.id, key: apiKey };
}

/** An upload in the console (multipart, as the browser sends it), trained before it returns. */
async function ownerUpload(owner: OwnerClient, deploymentId: string, name: string, text: string, train = true): Promise<Doc> {
  const form = new FormData();
  form.set("file", new File([text], name, { type: "text/plain" }));
  if (!train) form.set("train", "false");
  const r = await owner.post<{ document: Doc }>(`/deployments/${deploymentId}/documents`, form);
  expect([201, 202]).toContain(r.status);
  if (train) expect(await srv.services.documents.waitFor([r.body.document.id], 30_000)).toBe(true);
  return r.body.document;
}

const ownerList = async (owner: OwnerClient, deploymentId: string) =>
  (await owner.get<{ data: Doc[] }>(`/deployments/${deploymentId}/documents`)).body.data;

describe("the public key and the owner's documents (N1)", () => {
  test("a key push under the name of the owner's document does not replace it: both stay, and answers still use the owner's text", async () => {
    const { owner, deploymentId, key } = await ownerWithDeployment();
    const mine = await ownerUpload(
      owner,
      deploymentId,
      "handbook.txt",
      "Refunds. Annual plans can be refunded within 30 days of purchase.",
    );
    const attack = await push(key, { content: "Refunds. Annual plans are never refunded under any circumstances.", name: "handbook.txt" });
    expect(attack.status).toBe(200);
    expect(((await attack.json()) as Doc).origin).toBe("key");
    const docs = await ownerList(owner, deploymentId);
    expect(docs.map((d) => [d.name, d.origin, d.status])).toEqual([
      ["handbook.txt", "owner", "completed"],
      ["handbook.txt", "key", "completed"],
    ]);
    expect(docs.find((d) => d.id === mine.id)?.chunk_count).toBeGreaterThan(0);
    const answer = await fetch(`${srv.url}/api/v1/chat/completions-with-sources`, {
      method: "POST",
      headers: { ...auth(key), "content-type": "application/json" },
      body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "Can annual plans be refunded within 30 days?" }] }),
    });
    const body = (await answer.json()) as { chunks: { text: string }[] };
    expect(body.chunks.map((c) => c.text).join("\n")).toContain("within 30 days");
  });

  test("replace=false or true, a later key push replaces only the earlier key push of that name", async () => {
    const { owner, deploymentId, key } = await ownerWithDeployment();
    await ownerUpload(owner, deploymentId, "prices.txt", "Prices. The basic plan costs 10 euros a month.");
    expect((await push(key, { content: "Prices. Synced price list, version one.", name: "prices.txt" })).status).toBe(200);
    expect((await push(key, { content: "Prices. Synced price list, version two.", name: "prices.txt" })).status).toBe(200);
    const docs = await ownerList(owner, deploymentId);
    expect(docs.map((d) => d.origin)).toEqual(["owner", "key"]);
    const pushed = docs.find((d) => d.origin === "key") as Doc;
    const text = sqliteDb(srv.services)
      .query<{ text: string }, [string]>("SELECT text FROM chunks WHERE document_id = ?")
      .all(pushed.id)
      .map((c) => c.text)
      .join(" ");
    expect(text).toContain("version two");
  });

  test("the key removes only key pushes, even when the owner lets it manage documents", async () => {
    const { owner, deploymentId, key } = await ownerWithDeployment();
    expect((await owner.patch(`/deployments/${deploymentId}`, { key_manages_documents: true })).status).toBe(200);
    const mine = await ownerUpload(owner, deploymentId, "terms.txt", "Terms. Contracts renew every year.", false);
    const refused = await fetch(`${srv.url}/api/v1/documents/${mine.id}`, { method: "DELETE", headers: auth(key) });
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({ code: "owner_document", param: "document" });
    const pushed = (await (await push(key, { content: "Synced terms.", name: "synced.txt", train: false })).json()) as Doc;
    expect((await fetch(`${srv.url}/api/v1/documents/${pushed.id}`, { method: "DELETE", headers: auth(key) })).status).toBe(200);
    expect((await ownerList(owner, deploymentId)).map((d) => d.id)).toEqual([mine.id]);
  });

  test("a push's status URL shows key pushes; the owner's documents are not found with the key unless it manages documents", async () => {
    const { owner, deploymentId, key } = await ownerWithDeployment();
    const mine = await ownerUpload(owner, deploymentId, "secret-plan.txt", "Launch on Friday.", false);
    const hidden = await fetch(`${srv.url}/api/v1/documents/${mine.id}`, { headers: auth(key) });
    expect(hidden.status).toBe(404);
    await owner.patch(`/deployments/${deploymentId}`, { key_manages_documents: true });
    expect((await fetch(`${srv.url}/api/v1/documents/${mine.id}`, { headers: auth(key) })).status).toBe(200);
  });
});

describe("the key's own storage share (N1)", () => {
  test("key pushes stop at the deployment's share with 403 push_quota_exceeded, and the owner's uploads still fit", async () => {
    const { owner, deploymentId, key } = await ownerWithDeployment();
    expect((await push(key, { content: "one", name: "one.txt", train: false })).status).toBe(201);
    expect((await push(key, { content: "two", name: "two.txt", train: false })).status).toBe(201);
    const over = await push(key, { content: "three", name: "three.txt", train: false });
    expect(over.status).toBe(403);
    expect(await errorOf(over)).toMatchObject({ code: "push_quota_exceeded", param: "documents" });
    // a replacement by name fits; the owner's own quota (3 documents) is untouched by the key's two
    expect((await push(key, { content: "two, revised", name: "two.txt", train: false })).status).toBe(201);
    for (const name of ["a.txt", "b.txt", "c.txt"]) await ownerUpload(owner, deploymentId, name, `owner file ${name}`, false);
    expect((await ownerList(owner, deploymentId)).filter((d) => d.origin === "owner")).toHaveLength(3);
  });

  test("the owner adjusts the share per deployment (documents and bytes), and the deployment shows it", async () => {
    const { owner, deploymentId, key } = await ownerWithDeployment();
    const shown = await owner.get<{ push_max_documents: number; push_max_bytes: number; push_share_custom: boolean }>(
      `/deployments/${deploymentId}`,
    );
    expect(shown.body).toMatchObject({ push_max_documents: 2, push_max_bytes: 100000, push_share_custom: false });
    const patched = await owner.patch(`/deployments/${deploymentId}`, { push_max_documents: 3, push_max_bytes: 50 });
    expect(patched.body).toMatchObject({ push_max_documents: 3, push_max_bytes: 50, push_share_custom: true });
    const big = await push(key, { content: "x".repeat(60), name: "big.txt", train: false });
    expect(big.status).toBe(403);
    expect(await errorOf(big)).toMatchObject({ code: "push_quota_exceeded", param: "bytes" });
    for (const n of [1, 2, 3]) expect((await push(key, { content: `small ${n}`, name: `s${n}.txt`, train: false })).status).toBe(201);
    expect((await push(key, { content: "small 4", name: "s4.txt", train: false })).status).toBe(403);
    await owner.patch(`/deployments/${deploymentId}`, { push_max_documents: null, push_max_bytes: null });
    expect((await owner.get(`/deployments/${deploymentId}`)).body).toMatchObject({ push_max_documents: 2, push_share_custom: false });
  });
});

describe("unchanged never confirms the owner's content (N12)", () => {
  test("pushing a guess of the owner's document reports unchanged: false; only a repeat of the key's own push is unchanged", async () => {
    const { owner, deploymentId, key } = await ownerWithDeployment();
    const secret = "Salaries. The CEO earns 250,000 euros a year.";
    await ownerUpload(owner, deploymentId, "salaries.txt", secret, false);
    const guess = await push(key, { content: secret, name: "salaries.txt", train: false });
    expect(guess.status).toBe(201);
    expect(((await guess.json()) as { unchanged: boolean }).unchanged).toBe(false);
    const again = await push(key, { content: secret, name: "salaries.txt", train: false });
    expect(((await again.json()) as { unchanged: boolean }).unchanged).toBe(true);
  });
});

/**
 * Signed webhooks end to end on a real server: an owner adds an endpoint through the owner API, sends a test event
 * and reads the delivery log; visitors' and the training queue's real actions — a refusal, a thumbs-down, a
 * handoff, a document trained, one that failed, a balance running low — each reach a real receiver on 127.0.0.1,
 * signed. Loopback, link-local and private URLs are refused unless the operator allows them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "../chat/chat-kit.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";
import { signedInOwner } from "../owner/owner-client.ts";

let server: TestServer;
let receiver: Receiver;
let owner: Awaited<ReturnType<typeof signedInOwner>>;
let deploymentId: string;
let apiKey: string;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer({
    DOCCHAT_LLM: "extractive",
    DOCCHAT_WEBHOOK_ALLOW_PRIVATE: "true",
    DOCCHAT_WEBHOOK_POLL_MS: "50",
    DOCCHAT_WEBHOOK_RETRY_BASE_MS: "20",
    DOCCHAT_WEBHOOK_BALANCE_LOW: "5000",
  });
  owner = await signedInOwner(server, { tokens: 5001 });
  const created = await server.services.deployments.create({ accountId: owner.accountId, name: "Handbook", published: true });
  deploymentId = created.deployment.id;
  apiKey = created.apiKey;
  await server.services.repos.deployments.update(deploymentId, { handoffEnabled: true });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
});

const received = (type: string) => receiver.attempts.filter((a) => a.type === type);
const arrives = async (type: string, n = 1) => {
  await waitUntil(() => received(type).length >= n, `${n} × ${type} at the receiver`);
  return received(type);
};

async function chat(question: string, conversationId?: string) {
  const r = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: question }], conversation_id: conversationId }),
  });
  return (await r.json()) as { chat_log_id: number; conversation_id: string; refused: boolean };
}

describe("webhooks through the owner API and real events", () => {
  test("an endpoint is added with a generated whsec_ secret, and a test event arrives signed and shows in the delivery log", async () => {
    const r = await owner.client.post<{ id: string; secret: string; events: string[]; url: string }>(
      `/deployments/${deploymentId}/webhooks`,
      { url: receiver.url, description: "CRM" },
    );
    expect(r.status).toBe(201);
    expect(r.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(r.body.events).toEqual([
      "lead.created",
      "feedback.negative",
      "answer.refused",
      "document.trained",
      "document.failed",
      "balance.low",
    ]);
    receiver.secret = r.body.secret;
    const sent = await owner.client.post<{ event_id: string; type: string; status: string }>(
      `/deployments/${deploymentId}/webhooks/${r.body.id}/test`,
    );
    expect([sent.status, sent.body.type]).toEqual([202, "webhook.test"]);
    const [t] = await arrives("webhook.test");
    expect(t?.id).toBe(sent.body.event_id);
    expect(t?.signatureValid).toBe(true);
    await waitUntil(async () => {
      const log = await owner.client.get<{ data: { event_id: string; status: string; last_status: number }[] }>(
        `/deployments/${deploymentId}/webhook-deliveries`,
      );
      return log.body.data.some((d) => d.event_id === sent.body.event_id && d.status === "delivered" && d.last_status === 204);
    }, "the delivery log shows it delivered");
  });

  test("document.trained when a document is trained, document.failed when one fails", async () => {
    const bytes = new Uint8Array(readFileSync(join(FIXTURES, "acme-handbook.txt")));
    const pushed = await server.services.documents.push(
      { deploymentId, name: "acme-handbook.txt", bytes, train: true, replace: true },
      { waitMs: 20_000 },
    );
    expect(pushed.outcome).toBe("trained");
    const [t] = await arrives("document.trained");
    expect(t?.data).toMatchObject({ deployment_id: deploymentId, document: { name: "acme-handbook.txt", kind: "txt" } });
    expect((t?.data.document as { chunk_count: number } | undefined)?.chunk_count).toBeGreaterThan(0);
    // a queued document whose prepared content is unreadable fails in the training worker
    await server.services.repos.documents.insert({
      id: "doc_broken",
      deploymentId,
      name: "broken.txt",
      kind: "txt",
      contentHash: "broken",
      bytes: new TextEncoder().encode("x"),
      chunks: "{not json",
      pages: null,
      queue: true,
      replaceOnTrain: false,
    });
    server.services.training.kick();
    const [f] = await arrives("document.failed");
    expect(f?.data).toMatchObject({ document: { id: "doc_broken", name: "broken.txt" } });
    expect((f?.data.error as { code: string } | undefined)?.code).toBeString();
    expect(f?.signatureValid).toBe(true);
  });

  test("answer.refused, feedback.negative and lead.created come from a visitor's refusal, thumbs-down and handoff", async () => {
    const refused = await chat("Who won the 1998 football world cup?");
    expect(refused.refused).toBe(true);
    const [r] = await arrives("answer.refused");
    expect(r?.id).toBe(`msg_refused_${refused.chat_log_id}`);
    expect(r?.data).toMatchObject({ chat_log_id: refused.chat_log_id, question: "Who won the 1998 football world cup?" });

    const answered = await chat("Can annual plans be refunded?");
    const rate = await fetch(`${server.url}/api/v1/widget/feedback`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ chat_log_id: answered.chat_log_id, feedback: 0 }),
    });
    expect(rate.status).toBe(200);
    const [fb] = await arrives("feedback.negative");
    expect(fb?.data).toMatchObject({ chat_log_id: answered.chat_log_id, question: "Can annual plans be refunded?" });

    const handoff = async () =>
      fetch(`${server.url}/api/v1/widget/handoff`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ email: "visitor@example.com", name: "Vi", conversation_id: refused.conversation_id }),
      });
    expect((await handoff()).status).toBe(200);
    expect((await handoff()).status).toBe(200);
    const [lead] = await arrives("lead.created");
    expect(lead?.data).toMatchObject({ lead: { email: "visitor@example.com", refused_question: "Who won the 1998 football world cup?" } });
    // the repeated handoff is the same lead: no second event
    await Bun.sleep(300);
    expect(received("lead.created").length).toBe(1);
    expect(receiver.attempts.every((a) => a.signatureValid)).toBe(true);
  });

  test("balance.low once when an answer takes the balance below the threshold", async () => {
    // 5001 tokens at the start, threshold 5000: the first answer crossed it
    await arrives("balance.low");
    await chat("When is the support desk open?");
    await Bun.sleep(300);
    const low = received("balance.low");
    expect(low.length).toBe(1);
    expect(low[0]?.data.balance as number).toBeLessThan(5000);
    expect(low[0]?.data.threshold).toBe(5000);
  });

  test("a disabled endpoint receives nothing; redelivery sends an event again under the same id", async () => {
    const list = await owner.client.get<{ data: { id: string }[] }>(`/deployments/${deploymentId}/webhooks`);
    const id = list.body.data[0]?.id as string;
    const log = await owner.client.get<{ data: { id: number; event_id: string; status: string }[] }>(
      `/deployments/${deploymentId}/webhook-deliveries?limit=1`,
    );
    const last = log.body.data[0];
    const again = await owner.client.post<{ status: string; event_id: string }>(
      `/deployments/${deploymentId}/webhook-deliveries/${last?.id}/redeliver`,
    );
    expect([again.status, again.body.event_id]).toEqual([202, last?.event_id as string]);
    await waitUntil(() => receiver.attempts.filter((a) => a.id === last?.event_id).length >= 2, "redelivered");
    const off = await owner.client.patch<{ enabled: boolean }>(`/deployments/${deploymentId}/webhooks/${id}`, { enabled: false });
    expect(off.body.enabled).toBe(false);
    const before = receiver.attempts.length;
    await chat("What is the airspeed of an unladen swallow?");
    await Bun.sleep(300);
    expect(receiver.attempts.length).toBe(before);
  });
});

describe("webhook URLs the operator has not allowed", () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer();
  });
  afterAll(() => strict?.stop());

  test("loopback, link-local, private and unresolvable URLs are refused with url_not_allowed; bad shapes and events with bad_request", async () => {
    const o = await signedInOwner(strict);
    const { deployment } = await strict.services.deployments.create({ accountId: o.accountId, name: "Strict", published: true });
    const add = (body: Record<string, unknown>) =>
      o.client.post<{ error: { code: string; param?: string } }>(`/deployments/${deployment.id}/webhooks`, body);
    for (const url of [
      "http://127.0.0.1:9/hook",
      "http://localhost/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://10.1.2.3/x",
      "http://192.168.1.1/x",
      "http://[::1]/x",
      "http://[fe80::1]/x",
      "http://0.0.0.0/x",
      "http://docchat-no-such-host.invalid/x",
    ]) {
      const r = await add({ url });
      expect([url, r.status, r.body.error.code]).toEqual([url, 400, "url_not_allowed"]);
    }
    for (const body of [{ url: "ftp://example.com/x" }, { url: "http://user:pw@example.com/" }, { url: "not a url" }]) {
      const r = await add(body);
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, "bad_request", "url"]);
    }
    const ev = await add({ url: "http://93.184.216.34/hook", events: ["lead.created", "nope"] });
    expect([ev.status, ev.body.error.code, ev.body.error.param]).toEqual([400, "bad_request", "events"]);
    const ok = await add({ url: "http://93.184.216.34/hook", events: ["lead.created"] });
    expect(ok.status).toBe(201);
  });

  test("another owner's deployment and endpoints are not found", async () => {
    const a = await signedInOwner(strict);
    const b = await signedInOwner(strict);
    const { deployment } = await strict.services.deployments.create({ accountId: a.accountId, name: "A", published: true });
    const made = await a.client.post<{ id: string }>(`/deployments/${deployment.id}/webhooks`, { url: "http://93.184.216.34/h" });
    expect(made.status).toBe(201);
    expect((await b.client.get(`/deployments/${deployment.id}/webhooks`)).status).toBe(404);
    expect((await b.client.post(`/deployments/${deployment.id}/webhooks/${made.body.id}/test`)).status).toBe(404);
    expect((await b.client.del(`/deployments/${deployment.id}/webhooks/${made.body.id}`)).status).toBe(404);
  });
});

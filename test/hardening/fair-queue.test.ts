import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { GenerateEvent, GenerateRequest, LlmBackend, Tenant } from "../../src/llm/backend.ts";
import { createBoundedBackend } from "../../src/llm/queue.ts";
import { type ChatWorld, postJson, seedWithDocs, startChatWorld } from "../chat/chat-kit.ts";

describe("model capacity is shared fairly between tenants", () => {
  let world: ChatWorld;
  beforeAll(async () => {
    // The defaults: 2 answers at once, 32 waiting in all.
    world = await startChatWorld({ upstream: true, env: { DOCCHAT_LLM_CONCURRENCY: "2", DOCCHAT_LLM_QUEUE: "32" } });
  });
  afterAll(() => world.stop());

  test("36 slow streams from one deployment don't make another tenant's question fail with 503, and it is served before that backlog", async () => {
    const busy = await seedWithDocs(world.server);
    const other = await seedWithDocs(world.server);
    world.upstream!.setMode({ kind: "slow", tokens: 8, delayMs: 60 });
    const question = { model: "m", messages: [{ role: "user", content: "Can annual plans be refunded?" }] };
    const finished: string[] = [];
    const flood = Array.from({ length: 36 }, async (_, i) => {
      const r = await postJson(world.server, "/api/v1/chat/completions", busy.apiKey, { ...question, stream: true });
      if (r.status === 200) {
        await r.text();
        finished.push(`busy-${i}`);
      } else await r.body?.cancel();
      return r.status;
    });
    await Bun.sleep(150);
    const mine = await postJson(world.server, "/api/v1/chat/completions", other.apiKey, question);
    finished.push("other");
    expect(mine.status).toBe(200);
    const statuses = await Promise.all(flood);
    // The busy deployment keeps its running answers and its share of the line; the rest is refused at once.
    expect(statuses.filter((s) => s === 200).length).toBe(2 + 8);
    expect(statuses.filter((s) => s === 503).length).toBe(26);
    // Round-robin: the other tenant waited for one free slot, not for the busy tenant's whole backlog.
    expect(finished.indexOf("other")).toBeLessThan(5);
  }, 30_000);
});

describe("the bounded backend's wait line", () => {
  /** A backend whose answers end only when told to, so slots stay taken as long as a test needs. */
  function heldBackend() {
    const gates: (() => void)[] = [];
    const backend: LlmBackend = {
      name: "extractive",
      async *generate(_req: GenerateRequest): AsyncGenerator<GenerateEvent> {
        await new Promise<void>((resolve) => gates.push(resolve));
        yield { type: "done", promptTokens: 1, completionTokens: 1, finishReason: "stop" };
      },
      countTokens: async () => 1,
      close: async () => {},
    };
    return { backend, finishOne: () => gates.shift()?.() };
  }
  const req = (tenant: Tenant): GenerateRequest => ({ messages: [{ role: "user", content: "q" }], temperature: 0, maxTokens: 5, tenant });
  const run = async (b: LlmBackend, tenant: Tenant, order: string[], label: string) => {
    try {
      for await (const _ of b.generate(req(tenant))) {
      }
      order.push(label);
      return "done";
    } catch (e) {
      return (e as { code?: string }).code ?? "error";
    }
  };

  test("one account's many deployments cannot take the whole line; a newcomer displaces the heaviest tenant's newest waiter", async () => {
    const held = heldBackend();
    const b = createBoundedBackend(held.backend, { concurrency: 1, maxQueue: 6, maxQueuePerDeployment: 4, maxQueuePerAccount: 5 });
    const order: string[] = [];
    const a1 = { accountId: 1, deploymentId: "a1" };
    const a2 = { accountId: 1, deploymentId: "a2" };
    const c = { accountId: 2, deploymentId: "c" };
    const d = { accountId: 3, deploymentId: "d" };
    const results: Promise<string>[] = [run(b, a1, order, "a1-running")];
    await Bun.sleep(5);
    for (let i = 0; i < 4; i++) results.push(run(b, a1, order, `a1-${i}`));
    results.push(run(b, a2, order, "a2-0"));
    // Account 1 now waits with 5 (its cap); its next request is refused even from a third deployment.
    expect(await run(b, { accountId: 1, deploymentId: "a3" }, order, "a3")).toBe("overloaded");
    results.push(run(b, c, order, "c-0"));
    // The line is full (6). Account 3 arrives: a1's newest waiter makes way.
    results.push(run(b, d, order, "d-0"));
    await Bun.sleep(5);
    for (let i = 0; i < 20 && order.length < 7; i++) {
      held.finishOne();
      await Bun.sleep(2);
    }
    const outcome = await Promise.all(results);
    expect(outcome.filter((o) => o === "overloaded")).toHaveLength(1);
    expect(outcome[4]).toBe("overloaded");
    // After the running one: accounts in turn (1, 2, 3), and within account 1 its deployments in turn.
    expect(order.slice(0, 5)).toEqual(["a1-running", "a1-0", "c-0", "d-0", "a2-0"]);
  });
});

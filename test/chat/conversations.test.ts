import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { describeEngines } from "../helpers/stores.ts";
import { answerCalls, type ChatWorld, postJson, seedWithDocs, startChatWorld } from "./chat-kit.ts";

describeEngines("conversations", (engine) => {
  let world: ChatWorld;
  let a: Awaited<ReturnType<typeof seedWithDocs>>;
  let b: Awaited<ReturnType<typeof seedWithDocs>>;

  beforeAll(async () => {
    world = await startChatWorld({ upstream: true, engine });
    a = await seedWithDocs(world.server);
    b = await seedWithDocs(world.server);
  }, 60_000);
  afterAll(() => world.stop());

  interface Completion {
    id: string;
    conversation_id: string;
    search_query: string;
    chat_log_id: number;
  }

  async function ask(key: string, body: Record<string, unknown>): Promise<Completion> {
    const r = await postJson(world.server, "/api/v1/chat/completions", key, { model: "m", ...body });
    expect(r.status).toBe(200);
    return (await r.json()) as Completion;
  }

  /** Everything the upstream was shown in the latest answer call, as one string. */
  const lastPrompt = () => JSON.stringify(answerCalls(world.upstream!).at(-1)?.body?.messages ?? []);

  describe("conversation rules", () => {
    test("without conversation_id a conv- id is minted and returned", async () => {
      const r = await ask(a.apiKey, { messages: [{ role: "user", content: "Can annual plans be refunded?" }] });
      expect(r.conversation_id).toMatch(/^conv-[0-9a-f]{24}$/);
      expect(r.id).toStartWith("chatcmpl-");
    });

    test("style B: reusing the conversation_id rebuilds the history on the server and resolves the follow-up", async () => {
      const first = await ask(a.apiKey, { message: "How much does the Pro plan cost?" });
      // The model's rewrite agrees with the deterministic one (a rewrite that matched nothing would fall back to
      // the visitor's own wording: test/hardening/model-rewrite-fallback.test.ts).
      world.upstream!.setMode({ kind: "reply", text: "Does the Pro plan include single sign-on?" });
      const second = await ask(a.apiKey, { message: "Does it include single sign-on?", conversation_id: first.conversation_id });
      world.upstream!.setMode({ kind: "reply" });
      expect(second.conversation_id).toBe(first.conversation_id);
      expect(second.search_query).toBe("Does the Pro plan include single sign-on?");
      expect(lastPrompt()).toContain("How much does the Pro plan cost?");
    });

    test("with a model configured, a grounded follow-up is rewritten by one bounded model call and that query is searched", async () => {
      const first = await ask(a.apiKey, { message: "How much does the Pro plan cost?" });
      world.upstream!.setMode({ kind: "reply", text: "What does the Pro plan include besides storage?" });
      const calls = world.upstream!.calls.length;
      const second = await ask(a.apiKey, { message: "What else does it include?", conversation_id: first.conversation_id });
      world.upstream!.setMode({ kind: "reply" });
      const rewrite = world.upstream!.calls.slice(calls).filter((c) => c.body?.stream !== true);
      expect(rewrite).toHaveLength(1);
      expect(JSON.stringify(rewrite[0]?.body?.messages)).toContain("Follow-up: What else does it include?");
      expect(second.search_query).toBe("What does the Pro plan include besides storage?");
    });

    test("a follow-up's search_query equals the question when there is no history", async () => {
      const r = await ask(a.apiKey, { message: "Does the Pro plan include single sign-on?" });
      expect(r.search_query).toBe("Does the Pro plan include single sign-on?");
    });

    test("when messages history and conversation_id are both sent, the messages history wins and no turn is counted twice", async () => {
      const first = await ask(a.apiKey, { message: "STORED-TURN-MARKER: how long are backups kept?" });
      await ask(a.apiKey, {
        conversation_id: first.conversation_id,
        messages: [
          { role: "user", content: "When is the support desk open?" },
          { role: "assistant", content: "Monday to Friday." },
          { role: "user", content: "Are urgent incidents handled at night?" },
        ],
      });
      const prompt = lastPrompt();
      expect(prompt).not.toContain("STORED-TURN-MARKER");
      expect(prompt.match(/When is the support desk open\?/g)?.length).toBe(1);
    });

    test("a chatcmpl- id passed as conversation_id starts a new, empty thread", async () => {
      const first = await ask(a.apiKey, { message: "PRIOR-THREAD-MARKER: how much does the Pro plan cost?" });
      const next = await ask(a.apiKey, { message: "How long are backups kept?", conversation_id: first.id });
      expect(next.conversation_id).toStartWith("conv-");
      expect(next.conversation_id).not.toBe(first.conversation_id);
      expect(lastPrompt()).not.toContain("PRIOR-THREAD-MARKER");
    });

    test("`user` is the thread when conversation_id is absent", async () => {
      const first = await ask(a.apiKey, { user: "visitor-42", message: "USER-THREAD-MARKER: how much does the Pro plan cost?" });
      const second = await ask(a.apiKey, { user: "visitor-42", message: "How much extra storage can I buy?" });
      expect(second.conversation_id).toBe(first.conversation_id);
      expect(lastPrompt()).toContain("USER-THREAD-MARKER");
    });

    test("another deployment's key cannot continue its conversation: it gets a new thread and none of the history", async () => {
      const mine = await ask(a.apiKey, { message: "CROSS-DEPLOYMENT-SECRET: how much does the Pro plan cost?" });
      const theirs = await ask(b.apiKey, { message: "How long are backups kept?", conversation_id: mine.conversation_id });
      expect(theirs.conversation_id).not.toBe(mine.conversation_id);
      expect(lastPrompt()).not.toContain("CROSS-DEPLOYMENT-SECRET");
      // and the same `user` value in two deployments is two different threads
      const ua = await ask(a.apiKey, { user: "shared-user", message: "How long are backups kept?" });
      const ub = await ask(b.apiKey, { user: "shared-user", message: "How long are backups kept?" });
      expect(ua.conversation_id).not.toBe(ub.conversation_id);
    });

    test("the model id in the request never selects another deployment: the key decides", async () => {
      const r = await postJson(world.server, "/api/v1/chat/completions", a.apiKey, {
        model: b.deploymentId,
        message: "Can annual plans be refunded?",
      });
      const body = (await r.json()) as { model: string; chat_log_id: number };
      // The response names the deployment that answered, not the one the request named.
      expect(body.model).toBe(a.deploymentId);
      expect(await world.server.services.repos.chatLogFeedback.findScoped(a.deploymentId, body.chat_log_id)).not.toBeNull();
      expect(await world.server.services.repos.chatLogFeedback.findScoped(b.deploymentId, body.chat_log_id)).toBeNull();
    });
  });
});

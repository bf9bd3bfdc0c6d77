import { afterAll, beforeAll, expect, test } from "bun:test";
import { type ChatWorld, openaiClient, postJson, seedWithDocs, startChatWorld } from "../chat/chat-kit.ts";
import { describeEngines } from "../helpers/stores.ts";
import { testSql } from "../helpers/test-sql.ts";

describeEngines("corrections served", (engine) => {
  let world: ChatWorld;
  beforeAll(async () => {
    world = await startChatWorld({ upstream: true, engine });
  }, 60_000);
  afterAll(() => world.stop());

  test("a rating of 0 puts the answer on the corrections list and the owner's replacement is then served on every chat endpoint, free, at zero balance, with no model call", async () => {
    const seeded = await seedWithDocs(world.server, ["acme-handbook.txt"], { tokens: 5000 });
    const question = "Is the Pro plan good for schools?";
    const first = (await (
      await postJson(world.server, "/api/v1/chat/completions", seeded.apiKey, {
        model: "m",
        messages: [{ role: "user", content: question }],
      })
    ).json()) as { chat_log_id: number };

    const rated = await postJson(world.server, "/api/v1/widget/feedback", seeded.apiKey, { chat_log_id: first.chat_log_id, feedback: 0 });
    expect(rated.status).toBe(200);
    const open = await world.server.services.corrections.list(seeded.deploymentId);
    expect(open.map((c) => c.turn.id)).toContain(first.chat_log_id);

    const replacement = "Yes: schools get the Pro plan at half price.";
    await world.server.services.corrections.set(first.chat_log_id, replacement, { deploymentId: seeded.deploymentId });
    await world.server.services.repos.accounts.setTokens(seeded.accountId, 0);
    const upstreamCalls = world.upstream!.calls.length;

    // POST /api/v1/chat/completions, streamed, through the official client
    const stream = await openaiClient(world.server, seeded.apiKey).chat.completions.create({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "is the pro plan good for schools" }],
    });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? "";
    expect(streamed).toBe(replacement);

    // GET /api/stream/ (native)
    const native = await fetch(
      `${world.server.url}/api/stream/?${new URLSearchParams({ api_key: seeded.apiKey, msg: "Is the Pro plan good for schools?" })}`,
    );
    expect(native.status).toBe(200);
    const events = (await native.text())
      .split("\n\n")
      .filter((f) => f.startsWith("data: "))
      .map((f) => JSON.parse(f.slice(6)) as { token?: string; done?: boolean; tokens_count?: number });
    expect(events.map((e) => e.token ?? "").join("")).toBe(replacement);
    expect(events.at(-1)?.done).toBe(true);
    expect(events.at(-1)?.tokens_count).toBe(0);

    expect(world.upstream!.calls.length).toBe(upstreamCalls);
    expect((await world.server.services.repos.accounts.findById(seeded.accountId))?.tokens).toBe(0);
    const served = await testSql(world.server.services).get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM chat_logs WHERE deployment_id = ? AND correction_id IS NOT NULL",
      [seeded.deploymentId],
    );
    expect(Number(served?.n)).toBe(2);
  });
});

import { describe, expect, test } from "bun:test";
import { answerCalls, balanceOf, expectBadRequestError, openaiClient, postJson, useSeededChatWorld } from "../chat/chat-kit.ts";

const { world, seeded } = useSeededChatWorld("sqlite", { upstream: true });

const CHAT = "/api/v1/chat/completions";
const ask = "Can annual plans be refunded? ";

async function expectBadRequest(res: Response, param: string) {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; param?: string } };
  expect(body.error.code).toBe("bad_request");
  expect(body.error.param).toBe(param);
}

describe("every visitor text field is bounded", () => {
  test("a question over 8,000 characters is refused with 400 naming the message, before any model call or debit", async () => {
    const balance = await balanceOf(world.server, seeded.accountId);
    const calls = answerCalls(world.upstream!).length;
    const huge = ask.repeat(31_000);
    await expectBadRequest(
      await postJson(world.server, CHAT, seeded.apiKey, { model: "m", messages: [{ role: "user", content: huge }] }),
      "messages[0].content",
    );
    await expectBadRequest(await postJson(world.server, CHAT, seeded.apiKey, { model: "m", message: huge.slice(0, 8001) }), "message");
    expect(await balanceOf(world.server, seeded.accountId)).toBe(balance);
    expect(answerCalls(world.upstream!).length).toBe(calls);
  });

  test("a question of exactly 8,000 characters is still answered", async () => {
    const q = ask.repeat(300).slice(0, 8000);
    const r = await postJson(world.server, CHAT, seeded.apiKey, { model: "m", message: q });
    expect(r.status).toBe(200);
  });

  test("empty and whitespace-only questions are a 400 naming the field, with the official client too", async () => {
    await expectBadRequest(
      await postJson(world.server, CHAT, seeded.apiKey, { model: "m", messages: [{ role: "user", content: "   \n\t " }] }),
      "messages[0].content",
    );
    await expectBadRequest(await postJson(world.server, CHAT, seeded.apiKey, { model: "m", message: "" }), "message");
    const client = openaiClient(world.server, seeded.apiKey);
    const e = await client.chat.completions
      .create({
        model: "m",
        messages: [
          { role: "system", content: "hi" },
          { role: "user", content: "  " },
        ],
      })
      .catch((x: unknown) => x);
    expectBadRequestError(e, "messages[1].content");
  });

  test("one oversized history message, and history too long in total, are refused naming the message", async () => {
    const long = "x".repeat(16_001);
    await expectBadRequest(
      await postJson(world.server, CHAT, seeded.apiKey, {
        model: "m",
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: "hello" },
          { role: "assistant", content: long },
          { role: "user", content: ask },
        ],
      }),
      "messages[2].content",
    );
    const turns = Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: "y".repeat(7000) }));
    await expectBadRequest(
      await postJson(world.server, CHAT, seeded.apiKey, { model: "m", messages: [...turns, { role: "user", content: ask }] }),
      "messages[9].content",
    );
  });

  test("the GET stream's message and the native msg are bounded too", async () => {
    const big = encodeURIComponent("q".repeat(8001));
    const g = await fetch(`${world.server.url}${CHAT}?api_key=${seeded.apiKey}&message=${big}`);
    await expectBadRequest(g, "message");
    const s = await fetch(`${world.server.url}/api/stream/?api_key=${seeded.apiKey}&msg=%20%20`);
    await expectBadRequest(s, "msg");
    const form = new URLSearchParams({ api_key: seeded.apiKey, msg: "z".repeat(200_000) });
    const n = await fetch(`${world.server.url}/api/chat/`, { method: "POST", body: form });
    // The legacy native chat answers failures with HTTP 200 and an error string; the code and field are still named.
    const body = (await n.json()) as { error?: string; code?: string; param?: string; response?: string };
    expect(body.response).toBeUndefined();
    expect(body.code).toBe("bad_request");
    expect(body.param).toBe("msg");
  });
});

import { describe, expect, test } from "bun:test";
import { appError } from "../../src/errors/index.ts";
import { cleanRewrite, rewriteWithModel } from "../../src/rag/llm-rewrite.ts";

const countTokens = async (t: string) => t.split(/\s+/).length;

describe("model rewrite of follow-ups", () => {
  test("keeps one searchable line and strips labels and quotes", () => {
    expect(cleanRewrite('Standalone question: "Does the Pro plan include SSO?"\nextra')).toBe("Does the Pro plan include SSO?");
    expect(cleanRewrite("   \n  ")).toBeNull();
    expect(cleanRewrite("?")).toBeNull();
  });

  test("is one bounded call with the conversation and returns the query with its token counts", async () => {
    const seen: { maxTokens: number; timeoutMs?: number; temperature: number }[] = [];
    const model = {
      complete: async (req: { maxTokens: number; timeoutMs?: number; temperature: number }) => {
        seen.push(req);
        return "Does the Pro plan include single sign-on?";
      },
      countTokens,
    };
    const r = await rewriteWithModel(model, {
      question: "Does it include SSO?",
      history: [{ question: "Pro plan price?", answer: "49 euros." }],
      timeoutMs: 1500,
      maxTokens: 64,
    });
    expect(r?.query).toBe("Does the Pro plan include single sign-on?");
    expect(r?.completionTokens).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({ maxTokens: 64, timeoutMs: 1500, temperature: 0 });
  });

  test("a failing or useless model reply returns null so the deterministic rewrite is kept", async () => {
    const down = { complete: async () => Promise.reject(appError("backend_down")), countTokens };
    expect(await rewriteWithModel(down, { question: "And it?", history: [], timeoutMs: 100, maxTokens: 8 })).toBeNull();
    const empty = { complete: async () => "", countTokens };
    expect(await rewriteWithModel(empty, { question: "And it?", history: [], timeoutMs: 100, maxTokens: 8 })).toBeNull();
  });
});

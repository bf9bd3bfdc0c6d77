import { describe, expect, test } from "bun:test";
import { type ErrorCode, errorCatalogue } from "../src/errors/catalogue.ts";
import { appError, toErrorBody } from "../src/errors/index.ts";

const entries = Object.entries(errorCatalogue) as [ErrorCode, (typeof errorCatalogue)[ErrorCode]][];
const OPENAI_TYPES = new Set([
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "not_found_error",
  "rate_limit_error",
  "insufficient_quota",
  "server_error",
]);

describe("the error catalogue", () => {
  test("codes are unique, lower snake case, and each has an HTTP error status", () => {
    const codes = entries.map(([code]) => code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const [code, e] of entries) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(Number.isInteger(e.status)).toBe(true);
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.status).toBeLessThan(600);
    }
  });

  test("each code has an OpenAI-style type and a visitor-safe message", () => {
    for (const [, e] of entries) {
      expect(OPENAI_TYPES.has(e.type)).toBe(true);
      expect(e.message.length).toBeGreaterThan(0);
      expect(e.message).not.toMatch(/sqlite|stack|\/src\/|dck_|select |undefined|null/i);
    }
    for (const [, e] of entries) if (e.status >= 500) expect(e.type).toBe("server_error");
  });

  test("the spec's codes are present with their statuses", () => {
    const spec: Partial<Record<ErrorCode, number>> = {
      bad_request: 400,
      sources_unsupported: 400,
      contextual_unsupported: 400,
      bad_key: 401,
      no_tokens: 402,
      ip_restricted: 403,
      not_trained: 404,
      rate_limited: 429,
      backend_down: 503,
    };
    for (const [code, status] of Object.entries(spec)) expect(errorCatalogue[code as ErrorCode]?.status as number).toBe(status);
    expect([401, 403]).toContain(errorCatalogue.account_disabled.status as number);
  });

  test("an AppError maps to {error:{message,type,code}} with param only when given", () => {
    expect(toErrorBody(appError("bad_key"))).toEqual({
      error: { message: errorCatalogue.bad_key.message, type: "authentication_error", code: "bad_key" },
    });
    expect(toErrorBody(appError("bad_request", { param: "messages" })).error.param).toBe("messages");
  });
});

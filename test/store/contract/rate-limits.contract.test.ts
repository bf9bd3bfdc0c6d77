/** Rate limits through the store contract: the same decisions on SQLite (in-process log) and PostgreSQL (shared log). */
import { expect, test } from "bun:test";
import type { RateDecision } from "../../../src/store/contract/index.ts";
import { describeStores } from "../../helpers/stores.ts";

describeStores("rate limits", (ctx) => {
  test("120 calls a minute are allowed with the remaining count going down, the 121st is refused with a Retry-After", async () => {
    const limits = ctx.store().repos.rateLimits;
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 121; i++) decisions.push(await limits.hit("key:models", 120));
    expect(decisions.slice(0, 120).map((d) => d.remaining)).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
    expect(decisions.slice(0, 120).every((d) => d.allowed && d.limit === 120 && d.retryAfterSeconds === 0)).toBe(true);
    const refused = decisions[120] as RateDecision;
    expect(refused).toMatchObject({ allowed: false, limit: 120, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // a refused call is not counted: peek still sees exactly the limit
    expect(await limits.peek("key:models", 120)).toEqual({ allowed: false, limit: 120, remaining: 0, retryAfterSeconds: 0 });
  });

  test("identities are counted apart, and peek never counts", async () => {
    const limits = ctx.store().repos.rateLimits;
    for (let i = 0; i < 3; i++)
      expect(await limits.peek("ip:198.51.100.1", 2)).toEqual({ allowed: true, limit: 2, remaining: 2, retryAfterSeconds: 0 });
    expect(await limits.hit("ip:198.51.100.1", 2)).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfterSeconds: 0 });
    expect(await limits.hit("ip:198.51.100.2", 2)).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfterSeconds: 0 });
    expect(await limits.peek("ip:198.51.100.1", 2)).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfterSeconds: 0 });
  });

  test("many hits at once let exactly the limit through", async () => {
    const limits = ctx.store().repos.rateLimits;
    const decisions = await Promise.all(Array.from({ length: 60 }, () => limits.hit("key:burst", 25)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
  });
});

import { expect, test } from "bun:test";
import { createRateLimiter } from "../../src/store/sqlite/memory-rate-limits.ts";

/** A limiter on a hand-moved clock that has allowed `limit` calls to "k", one every `stepMs` from t=0. */
function filledLimiter(limit: number, stepMs: number) {
  const clock = { now: 0 };
  const limiter = createRateLimiter({ now: () => clock.now });
  for (let i = 0; i < limit; i++) {
    expect(limiter.hit("k", limit).allowed).toBe(true);
    clock.now += stepMs;
  }
  return { limiter, clock };
}

test("the limiter allows exactly N calls in any rolling minute and frees them as they age out", () => {
  const { limiter, clock } = filledLimiter(3, 10_000);
  const blocked = limiter.hit("k", 3);
  expect(blocked).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfterSeconds: 30 });
  clock.now = 60_001; // the first call (t=0) has left the window
  expect(limiter.hit("k", 3)).toMatchObject({ allowed: true, remaining: 0 });
  expect(limiter.hit("other", 3).remaining).toBe(2);
});

test("with a large limit, expired entries are compacted and the count stays exact", () => {
  const { limiter, clock } = filledLimiter(5000, 1);
  expect(limiter.hit("k", 5000).allowed).toBe(false);
  clock.now = 60_000 + 3000; // the window is (3000, 63000]: calls made at t ≤ 3000 have expired, 1999 still count
  expect(limiter.hit("k", 5000).remaining).toBe(5000 - 1999 - 1);
  for (let i = 0; i < 3000; i++) expect(limiter.hit("k", 5000).allowed).toBe(true);
  expect(limiter.hit("k", 5000).allowed).toBe(false);
});

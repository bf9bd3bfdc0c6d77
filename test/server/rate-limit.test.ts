import { expect, test } from "bun:test";
import { createRateLimiter } from "../../src/store/sqlite/memory-rate-limits.ts";

test("the limiter allows exactly N calls in any rolling minute and frees them as they age out", () => {
  let now = 0;
  const limiter = createRateLimiter({ now: () => now });
  for (let i = 0; i < 3; i++) {
    expect(limiter.hit("k", 3).allowed).toBe(true);
    now += 10_000;
  }
  const blocked = limiter.hit("k", 3);
  expect(blocked).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfterSeconds: 30 });
  now = 60_001; // the first call (t=0) has left the window
  expect(limiter.hit("k", 3)).toMatchObject({ allowed: true, remaining: 0 });
  expect(limiter.hit("other", 3).remaining).toBe(2);
});

test("with a large limit, expired entries are compacted and the count stays exact", () => {
  let now = 0;
  const limiter = createRateLimiter({ now: () => now });
  for (let i = 0; i < 5000; i++) {
    expect(limiter.hit("k", 5000).allowed).toBe(true);
    now += 1;
  }
  expect(limiter.hit("k", 5000).allowed).toBe(false);
  now = 60_000 + 3000; // the window is (3000, 63000]: calls made at t ≤ 3000 have expired, 1999 still count
  expect(limiter.hit("k", 5000).remaining).toBe(5000 - 1999 - 1);
  for (let i = 0; i < 3000; i++) expect(limiter.hit("k", 5000).allowed).toBe(true);
  expect(limiter.hit("k", 5000).allowed).toBe(false);
});

/** Rate limits shared by nodes: the PostgreSQL sliding log decides exactly like the in-memory one, across connections. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { RateDecision, RateLimitStore } from "../../src/store/contract/index.ts";
import { migratePg } from "../../src/store/postgres/migrate.pg.ts";
import { createPgRateLimits } from "../../src/store/postgres/rate-limits.pg.ts";
import { createMemoryRateLimits } from "../../src/store/sqlite/memory-rate-limits.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";

let cluster: PgCluster;
const clients: SQL[] = [];
const node = (max = 4) => {
  const sql = new SQL(cluster.url, { max });
  clients.push(sql);
  return sql;
};
beforeAll(async () => {
  cluster = await startPostgres();
  await migratePg(node());
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await cluster.stop();
});

const sequence = async (store: RateLimitStore, identity: string, limit: number, n: number): Promise<RateDecision[]> => {
  const out: RateDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await store.hit(identity, limit));
  return out;
};

describe("rate limits in PostgreSQL", () => {
  test("the 121st call within a minute is refused whichever of three nodes the calls went to", async () => {
    const nodes = [0, 1, 2].map(() => createPgRateLimits(node(2)));
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 121; i++) decisions.push(await (nodes[i % 3] as RateLimitStore).hit("key:models", 120));
    expect(decisions.slice(0, 120).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(0, 120).map((d) => d.remaining)).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
    const refused = decisions[120] as RateDecision;
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // another identity is untouched
    expect((await (nodes[1] as RateLimitStore).hit("key:other", 120)).remaining).toBe(119);
  });

  test("hundreds of hits at once from four connections let exactly the limit through", async () => {
    const nodes = [0, 1, 2, 3].map(() => createPgRateLimits(node(4)));
    const decisions = await Promise.all(Array.from({ length: 400 }, (_, i) => (nodes[i % 4] as RateLimitStore).hit("ip:203.0.113.9", 57)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(57);
    const remaining = decisions
      .filter((d) => d.allowed)
      .map((d) => d.remaining)
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 57 }, (_, i) => i));
  });

  test("decisions match the in-memory limiter hit for hit, and peek counts nothing", async () => {
    const pg = createPgRateLimits(node(1));
    const memory = createMemoryRateLimits();
    expect(await pg.peek("k", 5)).toEqual(await memory.peek("k", 5));
    const a = await sequence(pg, "k", 5, 8);
    const b = await sequence(memory, "k", 5, 8);
    const shape = (d: RateDecision) => ({ allowed: d.allowed, limit: d.limit, remaining: d.remaining, retrySet: d.retryAfterSeconds > 0 });
    expect(a.map(shape)).toEqual(b.map(shape));
    for (let i = 0; i < 3; i++) expect(await pg.peek("k", 5)).toEqual(await memory.peek("k", 5));
    expect(await pg.peek("k", 5)).toEqual({ allowed: false, limit: 5, remaining: 0, retryAfterSeconds: 0 });
    expect(await pg.peek("fresh", 5)).toEqual({ allowed: true, limit: 5, remaining: 5, retryAfterSeconds: 0 });
  });

  test("hits leave the rolling window one by one, not all at once", async () => {
    const pg = createPgRateLimits(node(1), { windowMs: 1200 });
    expect((await pg.hit("w", 2)).allowed).toBe(true);
    await Bun.sleep(600);
    expect((await pg.hit("w", 2)).allowed).toBe(true);
    const refused = await pg.hit("w", 2);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    await Bun.sleep(700); // the first hit has left the window, the second has not
    expect(await pg.hit("w", 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await pg.hit("w", 2)).allowed).toBe(false);
  });

  test("identities that went quiet are swept from the table once a window", async () => {
    const sql = node(1);
    const pg = createPgRateLimits(sql, { windowMs: 300 });
    for (let i = 0; i < 5; i++) await pg.hit(`quiet:${i}`, 10);
    const rows = async () =>
      ((await sql`SELECT count(*)::int AS n FROM rate_limit_hits WHERE identity LIKE 'quiet:%'`) as { n: number }[])[0]?.n;
    expect(await rows()).toBe(5);
    await Bun.sleep(350);
    await pg.hit("busy", 10); // the first hit after a window sweeps
    for (let i = 0; i < 50 && (await rows()) !== 0; i++) await Bun.sleep(20);
    expect(await rows()).toBe(0);
  });
});

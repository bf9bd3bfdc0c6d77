/**
 * Rate limits shared by nodes (issue 12): hits per second through createPgRateLimits (one round trip to
 * rate_limit_hit(), an advisory lock per identity, a sliding log in an UNLOGGED table) with 1 and 4 connections,
 * for many identities (keys spread over 1,000 deployments) and for one hot identity (every hit waits on the same
 * lock), next to the same decision taken in a client-side transaction (the design the function replaced) and the
 * in-memory limiter the SQLite engine uses. PostgreSQL 15 throwaway cluster on 127.0.0.1 with
 * fsync ON (durability as deployed). Each case runs for a fixed time; the median of alternating rounds is reported.
 *
 *   bun bench/rate-limit.bench.ts [--no-write] [--seconds 2] [--rounds 3]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SQL } from "bun";
import type { RateLimitStore } from "../src/store/contract/index.ts";
import { migratePg } from "../src/store/postgres/migrate.pg.ts";
import { createPgRateLimits } from "../src/store/postgres/rate-limits.pg.ts";
import { createMemoryRateLimits } from "../src/store/sqlite/memory-rate-limits.ts";
import { startPostgres } from "../test/helpers/postgres.ts";
import { replaceSection } from "./lib/benchmarks-md.ts";
import { closedLoop } from "./lib/chat-throughput.ts";
import { describeMachine } from "./lib/machine-info.ts";

const { values: args } = parseArgs({
  options: {
    "no-write": { type: "boolean", default: false },
    seconds: { type: "string", default: "2" },
    rounds: { type: "string", default: "3" },
  },
});
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const LIMIT = 1_000_000; // many identities: every hit is counted (a refused hit writes nothing and would flatter the figures)
const HOT_LIMIT = 120; // one identity: the interface's 120 a minute, so after the first 120 every hit is refused

/** Hits/s with `inFlight` concurrent callers for `seconds`; identity per hit from `who`. */
async function run(store: RateLimitStore, inFlight: number, who: (i: number) => string, limit: number): Promise<number> {
  const r = await closedLoop(seconds, inFlight, async (i) => {
    const d = await store.hit(who(i), limit);
    if (!d.allowed && limit === LIMIT) throw new Error("a hit under the limit was refused");
    return true;
  });
  return r.perSecond;
}

/**
 * The same decision as a client-side transaction instead of the rate_limit_hit() function: BEGIN, advisory lock,
 * prune, count, insert, COMMIT — one round trip per statement (the design the function replaced).
 */
function clientTransaction(sql: SQL): RateLimitStore {
  const decide = async (identity: string, limit: number) =>
    sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(7201513, hashtext(${identity}))`;
      const now = Date.now();
      await tx`DELETE FROM rate_limit_hits WHERE identity = ${identity} AND at <= ${now - 60_000}`;
      const [{ n }] = (await tx`SELECT count(*)::int AS n FROM rate_limit_hits WHERE identity = ${identity}`) as [{ n: number }];
      if (n < limit) await tx`INSERT INTO rate_limit_hits (identity, at) VALUES (${identity}, ${now})`;
      return { allowed: n < limit, limit, remaining: Math.max(0, limit - n - 1), retryAfterSeconds: 0 };
    });
  return { hit: decide, hitNow: () => undefined, peek: decide };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const cluster = await startPostgres({ fast: false });
try {
  const setup = new SQL(cluster.url);
  await migratePg(setup);
  const one = new SQL(cluster.url, { max: 1 });
  const four = new SQL(cluster.url, { max: 4 });
  const many = (i: number) => `key:dep_${i % 1000}`;
  const hot = () => "ip:203.0.113.7";
  const cases: { name: string; store: RateLimitStore; inFlight: number; who: (i: number) => string; limit: number }[] = [
    { name: "PostgreSQL, 1 connection, 1,000 identities", store: createPgRateLimits(one), inFlight: 1, who: many, limit: LIMIT },
    { name: "PostgreSQL, 4 connections, 1,000 identities", store: createPgRateLimits(four), inFlight: 4, who: many, limit: LIMIT },
    {
      name: "PostgreSQL, 4 connections, 16 in flight, 1,000 identities",
      store: createPgRateLimits(four),
      inFlight: 16,
      who: many,
      limit: LIMIT,
    },
    {
      name: "PostgreSQL, 1 connection, one identity over its limit of 120",
      store: createPgRateLimits(one),
      inFlight: 1,
      who: hot,
      limit: HOT_LIMIT,
    },
    {
      name: "PostgreSQL, 4 connections, one identity over its limit of 120",
      store: createPgRateLimits(four),
      inFlight: 4,
      who: hot,
      limit: HOT_LIMIT,
    },
    {
      name: "client-side transaction (5 round trips), 1 connection, 1,000 identities",
      store: clientTransaction(one),
      inFlight: 1,
      who: many,
      limit: LIMIT,
    },
    {
      name: "client-side transaction (5 round trips), 4 connections, 1,000 identities",
      store: clientTransaction(four),
      inFlight: 4,
      who: many,
      limit: LIMIT,
    },
    { name: "in memory (SQLite engine), 1,000 identities", store: createMemoryRateLimits(), inFlight: 1, who: many, limit: LIMIT },
  ];
  const results = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round <= rounds; round++) {
    for (const c of cases) {
      await setup`TRUNCATE rate_limit_hits`;
      const r = await run(c.store, c.inFlight, c.who, c.limit);
      if (round > 0) results.get(c.name)?.push(r); // round 0 warms up
    }
  }
  await one.close();
  await four.close();
  await setup.close();
  const f = (x: number) => Math.round(x).toLocaleString("en-US");
  const body = [
    "Command: `bun bench/rate-limit.bench.ts`",
    `Machine: ${describeMachine()}; PostgreSQL 15 throwaway cluster on 127.0.0.1 (fsync on), client and server on the same 2 cores; ${seconds} s per case, median of ${rounds} alternating rounds after a warm-up round.`,
    "",
    "| case | hits/s |",
    "| --- | ---: |",
    ...cases.map((c) => `| ${c.name} | ${f(median(results.get(c.name) as number[]))} |`),
    "",
    `Each PostgreSQL hit is one statement (\`SELECT * FROM rate_limit_hit(…)\`: advisory lock on the identity, expired hits deleted, the count row adjusted, insert). With 1,000 identities the limit is out of reach, so every hit writes a row; one identity serialises on its lock (what makes the count exact across nodes) and, past its 120, every hit is refused (lock, prune, read the count row and the oldest hit, no insert). The client-side transaction rows make the same decision in five statements (BEGIN … COMMIT): the function is what docchat uses.`,
  ].join("\n");
  console.log(body);
  if (!args["no-write"]) await replaceSection(join(import.meta.dir, "../BENCHMARKS.md"), "Rate limits across nodes (PostgreSQL)", body);
} finally {
  await cluster.stop();
}

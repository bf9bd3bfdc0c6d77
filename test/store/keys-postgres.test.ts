/**
 * The PostgreSQL key cache's ways of learning about changes made elsewhere: the NOTIFY sent by migration 002's
 * triggers, the LISTEN connection coming back after it dropped, and the change counter re-read every 500 ms.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { createPgStore, type PgStore } from "../../src/store/postgres/pg-store.ts";
import { KEYS_CHANNEL } from "../../src/store/postgres/repos/keys.pg.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";
import { deployment, uid } from "./contract/core-fixtures.ts";

let url: string;
let node: PgStore;
/** a plain connection: the CLI or another node writing */
let other: SQL;
beforeAll(async () => {
  url = await freshPgDatabase();
  node = await createPgStore(url, { max: 3 });
  other = new SQL(url, { max: 1 });
}, 60_000);
afterAll(async () => {
  await node?.close();
  await other?.close();
  await stopSharedCluster();
});

const waitFor = async (ms: number, check: () => Promise<boolean>) => {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > ms) return false;
    await Bun.sleep(10);
  }
  return true;
};

async function cachedKey(): Promise<string> {
  const d = await deployment(node);
  const hash = uid("hash");
  // the put's own notification arrives a moment later and clears the cache: cache the key after it came
  const seen: string[] = [];
  const sub = await other.listen(KEYS_CHANNEL, (p) => seen.push(p));
  await node.repos.keys.put(d.id, hash, "dc_pg");
  await waitFor(2000, async () => seen.length > 0);
  await sub.unlisten();
  await Bun.sleep(50);
  expect((await node.repos.keys.resolve(hash))?.key.disabled).toBe(false);
  return hash;
}

/** Disables the key with the triggers off for this session: the row changes, but no notification is sent (as if lost). */
async function disableSilently(hash: string): Promise<void> {
  await other.begin(async (tx) => {
    await tx`SET LOCAL session_replication_role = replica`;
    await tx`UPDATE api_keys SET disabled = 1 WHERE key_hash = ${hash}`;
  });
}

describe("PostgreSQL key cache", () => {
  test("a change by any other connection is announced on the keys channel when it commits, not before", async () => {
    const d = await deployment(node);
    const seen: string[] = [];
    const listener = new SQL(url, { max: 1 });
    const sub = await listener.listen(KEYS_CHANNEL, (p) => seen.push(p));
    try {
      await other.begin(async (tx) => {
        await tx`UPDATE deployments SET published = 0 WHERE id = ${d.id}`;
        await Bun.sleep(50);
        expect(seen).toEqual([]);
      });
      expect(await waitFor(1000, async () => seen.includes("deployments"))).toBe(true);
      await other`UPDATE accounts SET disabled = 1 WHERE id = ${d.accountId}`;
      expect(await waitFor(1000, async () => seen.includes("accounts"))).toBe(true);
    } finally {
      await sub.unlisten();
      await listener.close();
    }
  });

  test("a key disabled by the CLI's connection is refused by the node's resolve within 1 s", async () => {
    const hash = await cachedKey();
    await other`UPDATE api_keys SET disabled = 1 WHERE key_hash = ${hash}`;
    expect(await waitFor(1000, async () => (await node.repos.keys.resolve(hash))?.key.disabled === true)).toBe(true);
  });

  test("a change whose notification never came is still seen within 1 s through the change counter", async () => {
    const hash = await cachedKey();
    await disableSilently(hash); // then only the counter moves
    await Bun.sleep(50);
    expect((await node.repos.keys.resolve(hash))?.key.disabled).toBe(false); // cached: nothing told the node yet
    await other`SELECT nextval('key_cache_version')`;
    expect(await waitFor(1000, async () => (await node.repos.keys.resolve(hash))?.key.disabled === true)).toBe(true);
  });

  test("when the listening connection is cut, the node re-listens and forgets what it cached", async () => {
    const hash = await cachedKey();
    await disableSilently(hash);
    const cut = (await other`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
      WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`) as { ok: boolean }[];
    expect(cut.length).toBeGreaterThanOrEqual(1);
    expect(await waitFor(3000, async () => (await node.repos.keys.resolve(hash))?.key.disabled === true)).toBe(true);
    // and it listens again (a LISTEN connection is back; the 500 ms counter check alone would also pass the rest)
    const listening = async () =>
      (
        (await other`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`) as { n: number }[]
      )[0]?.n ?? 0;
    expect(await waitFor(3000, async () => (await listening()) >= 1)).toBe(true);
    const d = await deployment(node);
    const h2 = uid("hash");
    await node.repos.keys.put(d.id, h2, "dc_again");
    expect((await node.repos.keys.resolve(h2))?.key.disabled).toBe(false);
    await other`UPDATE api_keys SET disabled = 1 WHERE key_hash = ${h2}`;
    expect(await waitFor(1000, async () => (await node.repos.keys.resolve(h2))?.key.disabled === true)).toBe(true);
  });
});

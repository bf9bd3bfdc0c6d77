/**
 * One contract suite, two engines: `describeStores(title, body)` runs the same tests against a fresh SQLite store
 * (a temp data dir) and a fresh PostgreSQL store (its own database in a throwaway cluster shared by the file).
 * `ctx.store()` is the current store; `ctx.node()` opens another store on the same database, like a second node
 * (SQLite: a second connection to the same file).
 */
import { afterAll, beforeAll, describe } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import type { Store } from "../../src/store/contract/index.ts";
import { createPgStore, type PgStore } from "../../src/store/postgres/pg-store.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { ENGINES, type Engine } from "./index-drivers.ts";
import { type PgCluster, startPostgres } from "./postgres.ts";

export const STORE_ENGINES: Engine[] = ENGINES;

let cluster: Promise<PgCluster> | null = null;
/** One cluster per test file, started on first use; `stopSharedCluster` (registered by describeStores) stops it. */
export function sharedCluster(): Promise<PgCluster> {
  cluster ??= startPostgres();
  return cluster;
}

export async function stopSharedCluster(): Promise<void> {
  const c = cluster;
  cluster = null;
  await (await c)?.stop();
}

/** A new, empty database with pgvector in the shared cluster; returns its URL. */
export async function freshPgDatabase(): Promise<string> {
  const c = await sharedCluster();
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new SQL(c.url, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.close();
  const url = c.url.replace(/\/docchat$/, `/${name}`);
  const db = new SQL(url, { max: 1 });
  await db`CREATE EXTENSION IF NOT EXISTS vector`;
  await db.close();
  return url;
}

/**
 * `count` PostgreSQL stores on one fresh database of the file's cluster, as nodes sharing it: opened one after the
 * other before the file's tests, closed (and the cluster stopped) after them. The array is filled by the first test.
 */
export function usePgNodes(count: number, opts: { max: number }): PgStore[] {
  const nodes: PgStore[] = [];
  beforeAll(async () => {
    const url = await freshPgDatabase();
    for (let i = 0; i < count; i++) nodes.push(await createPgStore(url, opts));
  }, 60_000);
  afterAll(async () => {
    for (const n of nodes) await n.close();
    await stopSharedCluster();
  });
  return nodes;
}

export interface StoreContext {
  engine: Engine;
  store(): Store;
  /** Another store on the same database: a second node (closed after the suite). */
  node(): Promise<Store>;
}

export async function openStore(engine: Engine): Promise<{ store: Store; node: () => Promise<Store>; dispose: () => Promise<void> }> {
  const others: Store[] = [];
  if (engine === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "docchat-store-"));
    const store = await createSqliteStore(dir);
    return {
      store,
      node: async () => {
        const s = await createSqliteStore(dir);
        others.push(s);
        return s;
      },
      dispose: async () => {
        for (const s of others) await s.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = await freshPgDatabase();
  const store = await createPgStore(url, { max: 4 });
  return {
    store,
    node: async () => {
      const s = await createPgStore(url, { max: 4 });
      others.push(s);
      return s;
    },
    dispose: async () => {
      for (const s of others) await s.close();
      await store.close();
    },
  };
}

/**
 * The same tests on each engine, for features whose behaviour does not depend on it (a test server per engine:
 * `startTestServer(env, { engine })`). Call at the top level of a test file: the shared cluster stops after its last test.
 */
export function describeEngines(title: string, body: (engine: Engine) => void): void {
  afterAll(stopSharedCluster);
  for (const engine of STORE_ENGINES)
    describe(`${title} (${engine})`, () => {
      // the cluster starts once, in a hook of its own: the file's own hooks then only create a database each
      if (engine === "postgres") beforeAll(() => sharedCluster().then(() => {}), 60_000);
      body(engine);
    });
}

/** Call at the top level of a test file: the file's shared cluster stops after its last test. */
export function describeStores(title: string, body: (ctx: StoreContext) => void): void {
  afterAll(stopSharedCluster);
  for (const engine of STORE_ENGINES) {
    describe(`${title} (${engine})`, () => {
      let opened: Awaited<ReturnType<typeof openStore>> | null = null;
      beforeAll(async () => {
        opened = await openStore(engine);
      }, 60_000);
      afterAll(async () => {
        await opened?.dispose();
      });
      body({
        engine,
        store: () => {
          if (!opened) throw new Error("store not open yet (use it inside a test or hook)");
          return opened.store;
        },
        node: () => {
          if (!opened) throw new Error("store not open yet");
          return opened.node();
        },
      });
    });
  }
}

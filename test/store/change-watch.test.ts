import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { createChangeWatch } from "../../src/store/sqlite/change-watch.ts";
import { closeDatabase, openDatabase } from "../../src/store/sqlite/db.ts";
import { tempDir } from "../helpers/server.ts";

const dir = tempDir("docchat-change-watch-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the change watch reports a commit by this connection, by another connection and by another process, and nothing else", async () => {
  const db = await openDatabase(dir);
  try {
    const changed = createChangeWatch(db);
    expect(changed()).toBe(true); // the first look has nothing to compare with
    expect(changed()).toBe(false);
    db.query("SELECT count(*) FROM accounts").get();
    expect(changed()).toBe(false);
    db.run("INSERT INTO index_meta (key, value) VALUES ('a', '1')");
    expect(changed()).toBe(true);
    expect(changed()).toBe(false);
    const other = new Database(join(dir, "docchat.db"));
    other.run("UPDATE index_meta SET value = '2' WHERE key = 'a'");
    other.close();
    expect(changed()).toBe(true);
    const script = `const { Database } = require("bun:sqlite"); const d = new Database(${JSON.stringify(join(dir, "docchat.db"))}); d.run("UPDATE index_meta SET value = '3' WHERE key = 'a'"); d.close();`;
    expect(Bun.spawnSync([process.execPath, "-e", script]).exitCode).toBe(0);
    expect(changed()).toBe(true);
    expect(changed()).toBe(false);
  } finally {
    closeDatabase(db);
  }
});

/**
 * This process's POSIX locks on a file, from /proc/locks (Linux), without each line's leading ordinal: that is the
 * lock's place in the whole machine's list, which moves as other processes take and drop locks.
 */
function locksOn(file: string): string[] {
  const { ino } = statSync(file);
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .filter((l) => l.includes(`:${ino} `) && l.includes(` ${process.pid} `))
    .map((l) => l.replace(/^\d+:\s*/, ""));
}

test.skipIf(!existsSync("/proc/locks"))(
  "watching leaves SQLite's locks on the shared-memory file alone (closing any descriptor of it would drop them all)",
  async () => {
    const db = await openDatabase(dir);
    try {
      const shm = join(dir, "docchat.db-shm");
      const before = locksOn(shm);
      expect(before.length).toBeGreaterThan(0); // the connection's shared lock: "someone has the WAL index open"
      const changed = createChangeWatch(db);
      changed();
      db.run("INSERT OR REPLACE INTO index_meta (key, value) VALUES ('b', '1')");
      expect(changed()).toBe(true);
      expect(locksOn(shm)).toEqual(before);
    } finally {
      closeDatabase(db);
    }
  },
);

test("without a WAL index to read (an in-memory database) it asks SQLite instead, with the same answers", () => {
  const db = new Database(":memory:");
  db.run("CREATE TABLE t (x)");
  const changed = createChangeWatch(db);
  expect(changed()).toBe(true);
  expect(changed()).toBe(false);
  db.run("INSERT INTO t VALUES (1)");
  expect(changed()).toBe(true);
  expect(changed()).toBe(false);
});

/** This process's memory maps of a file, from /proc/self/maps (Linux). */
function mapsOf(file: string): number {
  return readFileSync("/proc/self/maps", "utf8")
    .split("\n")
    .filter((l) => l.endsWith(file)).length;
}

test.skipIf(!existsSync("/proc/self/maps"))(
  "the header is read from a map of the held descriptor (no system call per look), released with the database",
  async () => {
    const db = await openDatabase(dir);
    const shm = join(dir, "docchat.db-shm");
    let closed = false;
    try {
      const before = mapsOf(shm);
      const changed = createChangeWatch(db);
      expect(mapsOf(shm)).toBe(before + 1);
      changed();
      db.run("INSERT OR REPLACE INTO index_meta (key, value) VALUES ('c', '1')");
      expect(changed()).toBe(true);
      expect(changed()).toBe(false);
      closeDatabase(db);
      closed = true;
      expect(mapsOf(shm)).toBe(0);
      // once closed, a look reports a change (the cache is dropped) and never touches the released map
      expect(changed()).toBe(true);
    } finally {
      if (!closed) closeDatabase(db);
    }
  },
);

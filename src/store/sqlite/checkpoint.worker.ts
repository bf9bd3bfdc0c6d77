/**
 * Checkpoints the WAL from its own thread and connection. A checkpoint copies the WAL into the database file and
 * fsyncs it; run by SQLite's auto-checkpoint it happens inside whichever commit crosses the threshold, on the
 * server's thread, and held it for 100–700 ms while a large upload was stored. PASSIVE never blocks writers.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

let db: Database | null = null;

self.onmessage = (event: MessageEvent<{ file: string; intervalMs: number }>) => {
  if (db) return;
  db = new Database(event.data.file, { readwrite: true });
  db.run("PRAGMA busy_timeout = 1000");
  setInterval(() => {
    try {
      db?.run("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {
      // busy: the next tick tries again, and closeDatabase checkpoints at the end
    }
  }, event.data.intervalMs);
};

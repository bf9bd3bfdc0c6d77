import type { SQL } from "bun";
import type { QueueDepthsStore } from "../../contract/store.contract.ts";

/** Backlog sizes for the metrics endpoint, read at scrape time (the SQLite twin is repos/queue-depths.repo.ts). */
export function createPgQueueDepthsRepo(sql: SQL): QueueDepthsStore {
  return {
    async trainingQueue() {
      const r = ((await sql`SELECT count(*)::int AS n FROM documents WHERE status IN ('queued', 'processing')`) as { n: number }[])[0];
      return Number(r?.n ?? 0);
    },
    async mailOutbox() {
      const r = ((await sql`SELECT count(*)::int AS n FROM mail_outbox WHERE status IN ('pending', 'sending')`) as { n: number }[])[0];
      return Number(r?.n ?? 0);
    },
  };
}

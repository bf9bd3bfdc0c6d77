import type { SQL } from "bun";
import type { QueueDepthsStore } from "../../contract/store.contract.ts";
import { first } from "./values.ts";

/** Backlog sizes for the metrics endpoint, read at scrape time. */
export function createPgQueueDepthsRepo(sql: SQL): QueueDepthsStore {
  const count = async (q: Promise<unknown>) => Number((await first<{ n: number }>(q))?.n ?? 0);
  return {
    trainingQueue: () => count(sql`SELECT count(*)::int AS n FROM documents WHERE status IN ('queued', 'processing')`),
    mailOutbox: () => count(sql`SELECT count(*)::int AS n FROM mail_outbox WHERE status IN ('pending', 'sending')`),
  };
}

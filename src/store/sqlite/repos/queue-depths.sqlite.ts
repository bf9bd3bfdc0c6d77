import type { Db } from "../db.ts";

/** Backlog sizes for the metrics endpoint, read at scrape time. */
export function createQueueDepthsRepo(db: Db) {
  const training = db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE status IN ('queued', 'processing')");
  const outbox = db.query<{ n: number }, []>("SELECT count(*) AS n FROM mail_outbox WHERE status IN ('pending', 'sending')");
  return {
    trainingQueue: () => training.get()?.n ?? 0,
    mailOutbox: () => outbox.get()?.n ?? 0,
  };
}
export type QueueDepthsRepo = ReturnType<typeof createQueueDepthsRepo>;

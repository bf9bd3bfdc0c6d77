import type { QueueDepthsStore } from "../../contract/store.contract.ts";
import type { Db } from "../db.ts";

/** Backlog sizes for the metrics endpoint, read at scrape time. */
export function createSqliteQueueDepthsRepo(db: Db): QueueDepthsStore {
  const training = db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE status IN ('queued', 'processing')");
  const outbox = db.query<{ n: number }, []>("SELECT count(*) AS n FROM mail_outbox WHERE status IN ('pending', 'sending')");
  return {
    trainingQueue: async () => training.get()?.n ?? 0,
    mailOutbox: async () => outbox.get()?.n ?? 0,
  };
}

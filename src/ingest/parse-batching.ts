import type { BatchOutcome, PreparedDocument, PrepareRequest } from "./parse-pool.ts";

/** Files up to this size go in batches; a larger one is a job of its own (its own time limit, its progress). */
export const BATCH_FILE_BYTES = 64 * 1024;
/** Documents per batched job. */
export const BATCH_DOCUMENTS = 32;

interface Waiting {
  request: PrepareRequest;
  resolve: (v: PreparedDocument) => void;
  reject: (e: unknown) => void;
}

/**
 * A prepare function for bulk loads: small files asked for at about the same time (a bulk load keeps dozens in
 * flight) travel to a parse worker together, BATCH_DOCUMENTS to a job, so a worker spends its time parsing
 * rather than waiting for the next file's round trip. At most two batches a worker are out at a time (the pool
 * sends each worker its next one ahead): the files asked for meanwhile wait and go together when one comes back
 * (sent as they were asked for, the bulk load's files trickled in a few at a time and a job carried 7–15 of them).
 * A batch the worker fails as a whole (it died, it ran out of time) is prepared again one file at a time, so a bad
 * file fails alone, as it would on its own.
 */
export function createBatchingPrepare(pool: {
  size: number;
  prepare(request: PrepareRequest): Promise<PreparedDocument>;
  prepareBatch(requests: PrepareRequest[]): Promise<BatchOutcome[]>;
}): (request: PrepareRequest) => Promise<PreparedDocument> {
  const waiting: Waiting[] = [];
  let scheduled = false;
  let out = 0;

  function send(): void {
    scheduled = false;
    while (waiting.length > 0 && out < pool.size * 2) {
      const batch = waiting.splice(0, BATCH_DOCUMENTS);
      out++;
      const back = () => {
        out--;
        send();
      };
      if (batch.length === 1) {
        const [only] = batch as [Waiting];
        pool.prepare(only.request).then(only.resolve, only.reject).finally(back);
        continue;
      }
      pool
        .prepareBatch(batch.map((w) => w.request))
        .then(
          (outcomes) =>
            batch.forEach((w, i) => {
              const o = outcomes[i];
              if (o?.ok) w.resolve(o.prepared);
              else w.reject(o?.error);
            }),
          () => {
            for (const w of batch) pool.prepare(w.request).then(w.resolve, w.reject);
          },
        )
        .finally(back);
    }
  }

  return (request) => {
    const size = (request.end ?? Number.POSITIVE_INFINITY) - (request.start ?? 0);
    if (size > BATCH_FILE_BYTES || request.onProgress) return pool.prepare(request);
    return new Promise<PreparedDocument>((resolve, reject) => {
      waiting.push({ request, resolve, reject });
      if (waiting.length >= BATCH_DOCUMENTS) send();
      else if (!scheduled) {
        scheduled = true;
        // the other files of the load ask within the same turn of the event loop
        setImmediate(send);
      }
    });
  };
}

import type { Logger } from "../log.ts";
import type { TrainingStore } from "../store/contract/index.ts";

/**
 * Keeps the claims of the documents in hand alive while they are worked on (another node waits out a lease);
 * returns the function that stops renewing. Each renewal is scheduled when the previous one has settled, so a
 * slow database never piles them up; a claim found lost is no longer renewed.
 */
export function holdLeases(o: {
  store: Pick<TrainingStore, "renew">;
  worker: string;
  ids: string[];
  leaseMs: number;
  log: Logger;
}): () => void {
  const held = new Set(o.ids);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let released = false;
  const schedule = () => {
    if (released) return;
    timer = setTimeout(
      () => {
        o.store
          .renew(o.worker, [...held], o.leaseMs)
          .then((lost) => {
            for (const id of lost) held.delete(id);
          })
          .catch((e: unknown) => o.log.warn("training lease renewal failed", { error: String((e as Error).message ?? e) }))
          .finally(schedule);
      },
      Math.max(250, Math.floor(o.leaseMs / 3)),
    );
    (timer as { unref?: () => void }).unref?.();
  };
  schedule();
  return () => {
    released = true;
    clearTimeout(timer);
  };
}

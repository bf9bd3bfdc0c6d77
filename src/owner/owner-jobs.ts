import type { Logger } from "../log.ts";
import { createWakeableSleep } from "../shared/wakeable-sleep.ts";

/**
 * The owner's background work on `serve`: test questions after each training (woken when training changes
 * something), and the retention job (purge and "no transcripts") every few minutes. Both are idempotent, so every
 * node may run them: a purge twice removes nothing more, and a run after a training is keyed by it.
 */
export function createOwnerJobs(deps: {
  tests: { tick(): Promise<unknown> };
  privacy: { tick(): Promise<unknown> };
  log: Logger;
  testsEveryMs?: number;
  retentionEveryMs?: number;
}) {
  const pause = createWakeableSleep();
  const testsEvery = deps.testsEveryMs ?? 15_000;
  const retentionEvery = deps.retentionEveryMs ?? 5 * 60_000;
  let stopped = true;
  let loop: Promise<void> | null = null;
  let lastRetention = 0;
  const guarded = async (name: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      deps.log.error(`${name} failed`, { error: String((e as Error).message ?? e) });
    }
  };
  return {
    start(): void {
      if (loop) return;
      stopped = false;
      loop = (async () => {
        while (!stopped) {
          await guarded("test questions", () => deps.tests.tick());
          if (Date.now() - lastRetention >= retentionEvery) {
            lastRetention = Date.now();
            await guarded("retention job", () => deps.privacy.tick());
          }
          if (!stopped) await pause.sleep(testsEvery);
        }
      })();
    },
    /** Something changed (a training finished): look now instead of at the next round. */
    wake: () => pause.wake(),
    async stop(): Promise<void> {
      stopped = true;
      pause.wake();
      await loop;
      loop = null;
    },
  };
}

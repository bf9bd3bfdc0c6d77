import { createWakeableSleep } from "./wakeable-sleep.ts";

/**
 * The background loop of an outbox worker (mail, webhooks): drain what is due, then sleep until the next poll or
 * a wake (new work queued), until stopped. `stop` lets the round in flight finish.
 */
export function createOutboxLoop(o: {
  drain: (keepGoing: () => boolean) => Promise<number>;
  pollMs: number;
  onError: (e: unknown) => void;
}) {
  let running = false;
  const pause = createWakeableSleep();
  let loop: Promise<void> | null = null;
  async function run(): Promise<void> {
    while (running) {
      try {
        await o.drain(() => running);
      } catch (e) {
        o.onError(e);
      }
      if (running) await pause.sleep(o.pollMs);
    }
  }
  return {
    start(): void {
      if (running) return;
      running = true;
      loop = run();
    },
    /** New work was queued: drain now instead of at the next poll. */
    wake(): void {
      pause.wake();
    },
    async stop(): Promise<void> {
      running = false;
      pause.wake();
      await loop;
      loop = null;
    },
  };
}

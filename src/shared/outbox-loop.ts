import { createWakeableSleep } from "./wakeable-sleep.ts";

/**
 * An outbox worker's loop (mail, webhooks): claim the next due row under a lease, deliver it, until none is due;
 * then sleep until the next poll or a wake (new work queued), until stopped. `stop` lets the deliveries in flight
 * finish. A claimed row stays invisible to other workers while its attempt (at most `attemptMs`) may still be
 * running; after that a crash is assumed and it is claimed again.
 */
export function createOutboxLoop<T>(o: {
  claimNext: (at: number, leaseUntil: number) => Promise<T | null>;
  /** one attempt at a claimed row, recording its outcome (sent, retry later, dead) */
  deliver: (row: T, claimedAt: number) => Promise<void>;
  attemptMs: number;
  /** rows in flight at once */
  lanes: number;
  pollMs: number;
  now: () => number;
  onError: (e: unknown) => void;
}) {
  const leaseMs = o.attemptMs * 2 + 1000;
  let running = false;
  const pause = createWakeableSleep();
  let loop: Promise<void> | null = null;

  async function deliverOne(): Promise<boolean> {
    const at = o.now();
    const row = await o.claimNext(at, at + leaseMs);
    if (!row) return false;
    await o.deliver(row, at);
    return true;
  }

  /** Delivers every due row, `lanes` at a time; returns how many were attempted. */
  async function drain(keepGoing: () => boolean = () => true): Promise<number> {
    let n = 0;
    const lane = async () => {
      while (keepGoing() && (await deliverOne())) n++;
    };
    await Promise.all(Array.from({ length: o.lanes }, lane));
    return n;
  }

  async function run(): Promise<void> {
    while (running) {
      try {
        await drain(() => running);
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
    /** One pass over the due rows without the background loop (tests and tools). */
    runOnce: () => drain(),
  };
}

import { statfsSync } from "node:fs";
import { appError } from "../errors/index.ts";

export interface UploadAdmissionOptions {
  /** uploads parsed and stored at once, all accounts together */
  slots: number;
  /** of those, how many one account may hold while others wait */
  slotsPerAccount: number;
  /** uploads one account may have in flight (arriving, waiting or being stored); one more is refused */
  backlogPerAccount: number;
  /** bytes of upload bodies held in the spool folder at once */
  spoolMaxBytes: number;
  spoolDir: string;
  /** free disk the spool folder must keep after an upload (2 × the largest upload by default) */
  spoolReserveBytes: number;
  retryAfterSeconds?: number;
}

interface Waiter {
  account: string;
  grant(): void;
}

/**
 * Admission of document uploads, fair between accounts and patient with bursts. Receiving a body takes no slot
 * (only its share of the spool budget, and a place in the account's backlog); a slot is taken once the body has
 * arrived, for parsing and storing it, and handed out round-robin between accounts, each holding at most
 * `slotsPerAccount` while others wait. A burst therefore waits its turn instead of being refused: 503 overloaded
 * (with Retry-After) only when the spool is nearly full or the account's backlog is reached.
 */
export function createUploadAdmission(opts: UploadAdmissionOptions) {
  let spooled = 0;
  let running = 0;
  const inFlight = new Map<string, number>();
  const runningOf = new Map<string, number>();
  const queues = new Map<string, Waiter[]>();
  const order: string[] = [];
  const overloaded = (message: string) =>
    appError("overloaded", { message, headers: { "retry-after": String(opts.retryAfterSeconds ?? 5) } });

  function freeDisk(): number {
    try {
      const s = statfsSync(opts.spoolDir);
      return s.bavail * s.bsize;
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  }

  /** The next waiter, accounts in turn, skipping accounts that hold their share of slots. */
  function next(): Waiter | undefined {
    for (let i = 0, n = order.length; i < n; i++) {
      const account = order.shift() as string;
      const q = queues.get(account) as Waiter[];
      if ((runningOf.get(account) ?? 0) >= opts.slotsPerAccount) {
        order.push(account);
        continue;
      }
      const w = q.shift() as Waiter;
      if (q.length > 0) order.push(account);
      else queues.delete(account);
      return w;
    }
    return undefined;
  }

  function grantFree(): void {
    while (running < opts.slots) {
      const w = next();
      if (!w) return;
      running++;
      runningOf.set(w.account, (runningOf.get(w.account) ?? 0) + 1);
      w.grant();
    }
  }

  function leave(account: string): void {
    running--;
    const n = (runningOf.get(account) ?? 1) - 1;
    if (n > 0) runningOf.set(account, n);
    else runningOf.delete(account);
    grantFree();
  }

  return {
    /**
     * Before a body is read: a place in the account's backlog and `bytes` of the spool budget (the declared
     * length, or the largest upload when none was declared). Returns what gives them back after the response.
     */
    enter(accountId: number | string, bytes: number): () => void {
      const account = String(accountId);
      const mine = inFlight.get(account) ?? 0;
      if (mine >= opts.backlogPerAccount)
        throw overloaded(`This account already has ${mine} uploads in progress. Please wait for some to finish.`);
      if (spooled + bytes > opts.spoolMaxBytes || freeDisk() - bytes < opts.spoolReserveBytes)
        throw overloaded("The server is receiving too many uploads right now. Please try again shortly.");
      spooled += bytes;
      inFlight.set(account, mine + 1);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        spooled -= bytes;
        const left = (inFlight.get(account) ?? 1) - 1;
        if (left > 0) inFlight.set(account, left);
        else inFlight.delete(account);
      };
    },
    /** Waits for a slot to parse and store one upload of `accountId`; resolves with its release. */
    slot(accountId: number | string, signal?: AbortSignal): Promise<() => void> {
      const account = String(accountId);
      return new Promise((resolve, reject) => {
        let granted = false;
        const w: Waiter = {
          account,
          grant: () => {
            granted = true;
            signal?.removeEventListener("abort", onAbort);
            let released = false;
            resolve(() => {
              if (released) return;
              released = true;
              leave(account);
            });
          },
        };
        const onAbort = () => {
          if (granted) return;
          const q = queues.get(account);
          const at = q?.indexOf(w) ?? -1;
          if (q && at >= 0) q.splice(at, 1);
          if (q?.length === 0) {
            queues.delete(account);
            order.splice(order.indexOf(account), 1);
          }
          reject(appError("bad_request", { message: "The client went away." }));
        };
        let q = queues.get(account);
        if (!q) {
          q = [];
          queues.set(account, q);
          order.push(account);
        }
        q.push(w);
        signal?.addEventListener("abort", onAbort, { once: true });
        grantFree();
      });
    },
    /** For metrics and doctor: uploads being stored, waiting for a slot, and spool bytes held. */
    stats: () => ({ running, waiting: [...queues.values()].reduce((n, q) => n + q.length, 0), spooledBytes: spooled }),
  };
}

export type UploadAdmission = ReturnType<typeof createUploadAdmission>;

import { type IntCell, num, numOrNull } from "./row-values.ts";

/** A console session, addressed only by the SHA-256 of its id. */
export interface OwnerSession {
  idHash: string;
  accountId: number;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

export interface OwnerSessionRow {
  id_hash: string;
  account_id: IntCell;
  created_at: IntCell;
  last_seen_at: IntCell;
  expires_at: IntCell;
}

export const toSession = (r: OwnerSessionRow): OwnerSession => ({
  idHash: r.id_hash,
  accountId: num(r.account_id),
  createdAt: num(r.created_at),
  lastSeenAt: num(r.last_seen_at),
  expiresAt: num(r.expires_at),
});

export interface OwnerSessionsStore {
  create(s: OwnerSession): Promise<void>;
  find(idHash: string): Promise<OwnerSession | null>;
  touch(idHash: string, at: number): Promise<void>;
  remove(idHash: string): Promise<void>;
  /** Signs an account out everywhere, except (optionally) the session that asked; returns how many went. */
  removeForAccount(accountId: number, exceptIdHash?: string): Promise<number>;
  /** Drops sessions past either timeout; returns how many. */
  purge(now: number, idleMs: number): Promise<number>;
}

/** Sign-in attempts in the window: of this email from this address (`pair`), and of the address for any email. */
export interface AttemptCounts {
  pair: number;
  pairFirst: number | null;
  ip: number;
  ipFirst: number | null;
}

export interface AttemptCountsRow {
  pair: IntCell;
  pair_first: IntCell | null;
  ip: IntCell;
  ip_first: IntCell | null;
}

export const toAttemptCounts = (r: AttemptCountsRow | null): AttemptCounts => ({
  pair: num(r?.pair ?? 0),
  pairFirst: numOrNull(r?.pair_first),
  ip: num(r?.ip ?? 0),
  ipFirst: numOrNull(r?.ip_first),
});

/** Over a limit: refused, with the oldest attempt of the window that is full (when it leaves, one more may try). */
export function attemptVerdict(c: AttemptCounts, limits: { pair: number; ip: number }): { allowed: boolean; oldest: number | null } {
  const oldest = c.pair >= limits.pair ? c.pairFirst : c.ip >= limits.ip ? c.ipFirst : null;
  return { allowed: oldest === null, oldest };
}

/** Owner sign-in attempts that did not (yet) succeed, by email and client address, counted across every node. */
export interface LoginAttemptsStore {
  /** Attempts since `since` for this email from this address, and from this address for any email. */
  count(email: string, ip: string, since: number): Promise<AttemptCounts>;
  /** Returns the attempt's id. */
  record(email: string, ip: string, at: number): Promise<number>;
  /**
   * Counts and records one attempt in ONE transaction, so sign-ins sent in parallel can't all see room under the
   * limit: refused (with the oldest attempt that fills the limit) when this email+address has `limits.pair`
   * attempts since `since`, or the address `limits.ip`; else recorded.
   */
  attempt(
    email: string,
    ip: string,
    at: number,
    since: number,
    limits: { pair: number; ip: number },
  ): Promise<{ allowed: boolean; oldest: number | null }>;
  /** A right password clears that attempt and the earlier failures of the same email from the same address. */
  succeeded(email: string, ip: string): Promise<void>;
  /** Operator unlock: forgets the attempts for an email (from every address), or from one address; returns how many. */
  clear(filter: { email?: string; ip?: string }): Promise<number>;
  prune(before: number): Promise<void>;
}

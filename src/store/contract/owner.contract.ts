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

export interface AttemptLimits {
  pair: number;
  ip: number;
  /** failures of one email from all addresses since `since`; addresses it signed in from since `knownSince` are exempt */
  account?: { limit: number; since: number; knownSince: number };
}

export interface AttemptVerdict {
  allowed: boolean;
  /** the oldest attempt of the window that is full (when it leaves, one more may try) */
  oldest: number | null;
  /** which limit refused it */
  by: "pair" | "ip" | "account" | null;
}

/** An email's failures from all addresses in the account window, and whether this address signed in before. */
export interface AccountAttempts {
  account: number;
  accountFirst: number | null;
  known: boolean;
}

/** Over a limit: refused, with the oldest attempt of the window that is full. */
export function attemptVerdict(c: AttemptCounts & Partial<AccountAttempts>, limits: AttemptLimits): AttemptVerdict {
  if (c.pair >= limits.pair) return { allowed: false, oldest: c.pairFirst, by: "pair" };
  if (c.ip >= limits.ip) return { allowed: false, oldest: c.ipFirst, by: "ip" };
  if (limits.account && !c.known && (c.account ?? 0) >= limits.account.limit)
    return { allowed: false, oldest: c.accountFirst ?? null, by: "account" };
  return { allowed: true, oldest: null, by: null };
}

/**
 * Owner sign-in attempts that did not (yet) succeed, by email and client address, counted across every node; and
 * the addresses each email signed in from before (exempt from the per-account limit, so guessers elsewhere cannot
 * lock the owner out). Failures only count in `count`, `attempt` and `clear`.
 */
export interface LoginAttemptsStore {
  /** Failures since `since` for this email from this address, and from this address for any email. */
  count(email: string, ip: string, since: number): Promise<AttemptCounts>;
  /** Returns the attempt's id. */
  record(email: string, ip: string, at: number): Promise<number>;
  /**
   * Counts and records one attempt in ONE transaction, so sign-ins sent in parallel can't all see room under the
   * limit: refused (with the oldest attempt that fills the limit) when this email+address has `limits.pair`
   * failures since `since`, the address `limits.ip`, or — from an address the email never signed in from —
   * the email `limits.account.limit` since `limits.account.since`; else recorded.
   */
  attempt(email: string, ip: string, at: number, since: number, limits: AttemptLimits): Promise<AttemptVerdict>;
  /** A right password clears the earlier failures of that email from that address, and remembers the address. */
  succeeded(email: string, ip: string, at?: number): Promise<void>;
  /** Operator unlock: forgets the failures of an email (from every address), or from one address; returns how many. */
  clear(filter: { email?: string; ip?: string }): Promise<number>;
  /** Forgets failures up to `before`, and remembered addresses not used since `knownBefore` (default: kept). */
  prune(before: number, knownBefore?: number): Promise<void>;
}

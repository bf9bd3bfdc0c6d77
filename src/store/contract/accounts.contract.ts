import { type FlagCell, flag, type IntCell, num } from "./row-values.ts";

/** An owner account: signs in to the console, owns deployments, holds the token balance answers are paid from. */
export interface Account {
  id: number;
  email: string;
  tokens: number;
  disabled: boolean;
  createdAt: number;
}

/** One balance change: a grant, an operator's set, or an answer's debit. */
export interface LedgerEntry {
  delta: number;
  balance: number;
  reason: string;
  createdAt: number;
  /** an answer's deployment and question (null for grants and sets, and once its chat log was purged or erased) */
  deploymentId: string | null;
  deploymentName: string | null;
  question: string | null;
}

export interface AccountRow {
  id: IntCell;
  email: string;
  password_hash?: string | null;
  tokens: IntCell;
  disabled: FlagCell;
  created_at: IntCell;
}

export const toAccount = (r: AccountRow): Account => ({
  id: num(r.id),
  email: r.email,
  tokens: num(r.tokens),
  disabled: flag(r.disabled),
  createdAt: num(r.created_at),
});

export interface LedgerRow {
  delta: IntCell;
  balance: IntCell;
  reason: string;
  created_at: IntCell;
  deployment_id: string | null;
  deployment_name: string | null;
  question: string | null;
}

export const toLedgerEntry = (r: LedgerRow): LedgerEntry => ({
  delta: num(r.delta),
  balance: num(r.balance),
  reason: r.reason,
  createdAt: num(r.created_at),
  deploymentId: r.deployment_id ?? null,
  deploymentName: r.deployment_name ?? null,
  question: r.question || null,
});

/** Accounts and their token ledger. Every balance change writes its ledger row in the same transaction. */
export interface AccountsStore {
  /** A new account; a positive starting balance is recorded as a 'grant'. */
  create(input: { email: string; passwordHash: string | null; tokens: number }): Promise<Account>;
  /** Case-insensitive on engines that fold (the email column's collation). */
  findByEmail(email: string): Promise<Account | null>;
  findById(id: number): Promise<Account | null>;
  passwordHash(email: string): Promise<{ id: number; hash: string | null } | null>;
  setPasswordHash(id: number, hash: string): Promise<void>;
  setDisabled(id: number, disabled: boolean): Promise<void>;
  /** Sets the balance and records the difference in the ledger (`reason`, default 'set'), atomically. */
  setTokens(id: number, tokens: number, reason?: string): Promise<Account>;
  /**
   * Debits up to `amount` tokens under the account row's lock, so concurrent answers never overspend; the balance
   * floors at zero. Returns the new balance (0 for a missing account).
   */
  debit(id: number, amount: number, chatLogId: number | null): Promise<number>;
  /**
   * Holds up to `want` tokens of the balance for an answer being written, when at least `minimum` are free (the
   * balance less what other answers hold), under the account row's lock: concurrent answers, on any node, never
   * hold more than there is. Returns the reservation (settled by ChatLogsStore.record, or released), or null.
   * Reservations a crash left behind stop counting at `expiresAt`.
   */
  reserve(id: number, want: number, minimum: number, expiresAt: number): Promise<{ id: number; amount: number } | null>;
  /** Gives a reservation back unspent (the answer failed, or the visitor left before anything was written). */
  release(reservationId: number): Promise<void>;
  /** Newest first, at most `limit` (default 100). */
  ledger(id: number, limit?: number): Promise<LedgerEntry[]>;
}

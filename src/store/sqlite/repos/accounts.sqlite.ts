import type { Account, AccountRow, AccountsStore, LedgerRow } from "../../contract/accounts.contract.ts";
import { toAccount, toLedgerEntry } from "../../contract/accounts.contract.ts";
import type { Db } from "../db.ts";

const byId = (db: Db, id: number) => db.query<AccountRow, [number]>("SELECT * FROM accounts WHERE id = ?").get(id);

/** Inside a caller's transaction too (a chat turn's): the account, or null. */
export function accountById(db: Db, id: number): Account | null {
  const r = byId(db, id);
  return r ? toAccount(r) : null;
}

/**
 * Debits up to `amount` tokens (the balance floors at zero) and writes the ledger row; call inside an IMMEDIATE
 * transaction (its own, or a chat turn's) so concurrent answers never overspend. Returns the new balance.
 */
export function debitAccount(db: Db, id: number, amount: number, chatLogId: number | null): number {
  const row = byId(db, id);
  if (!row) return 0;
  const tokens = Number(row.tokens);
  const take = Math.min(tokens, Math.max(0, amount));
  const balance = tokens - take;
  db.run("UPDATE accounts SET tokens = ? WHERE id = ?", [balance, id]);
  if (take > 0) {
    db.run("INSERT INTO token_ledger (account_id, delta, balance, reason, chat_log_id, created_at) VALUES (?, ?, ?, 'answer', ?, ?)", [
      id,
      -take,
      balance,
      chatLogId,
      Date.now(),
    ]);
  }
  return balance;
}

export function createSqliteAccountsRepo(db: Db): AccountsStore {
  const byEmail = db.query<AccountRow, [string]>("SELECT * FROM accounts WHERE email = ?");
  const immediate = <T>(fn: () => T): T => db.transaction(fn).immediate();
  return {
    async create(input) {
      const at = Date.now();
      return immediate(() => {
        const row = db
          .query<AccountRow, [string, string | null, number, number]>(
            "INSERT INTO accounts (email, password_hash, tokens, created_at) VALUES (?, ?, ?, ?) RETURNING *",
          )
          .get(input.email, input.passwordHash, input.tokens, at) as AccountRow;
        if (input.tokens > 0) {
          db.run("INSERT INTO token_ledger (account_id, delta, balance, reason, created_at) VALUES (?, ?, ?, 'grant', ?)", [
            row.id,
            input.tokens,
            input.tokens,
            at,
          ]);
        }
        return toAccount(row);
      });
    },
    async findByEmail(email) {
      const r = byEmail.get(email);
      return r ? toAccount(r) : null;
    },
    async findById(id) {
      return accountById(db, id);
    },
    async passwordHash(email) {
      const r = byEmail.get(email);
      return r ? { id: Number(r.id), hash: r.password_hash ?? null } : null;
    },
    async setPasswordHash(id, hash) {
      db.run("UPDATE accounts SET password_hash = ? WHERE id = ?", [hash, id]);
    },
    async setDisabled(id, disabled) {
      db.run("UPDATE accounts SET disabled = ? WHERE id = ?", [disabled ? 1 : 0, id]);
    },
    async setTokens(id, tokens, reason = "set") {
      return immediate(() => {
        const before = byId(db, id);
        if (!before) throw new Error("account vanished");
        db.run("UPDATE accounts SET tokens = ? WHERE id = ?", [tokens, id]);
        db.run("INSERT INTO token_ledger (account_id, delta, balance, reason, created_at) VALUES (?, ?, ?, ?, ?)", [
          id,
          tokens - Number(before.tokens),
          tokens,
          reason,
          Date.now(),
        ]);
        return toAccount({ ...before, tokens });
      });
    },
    async debit(id, amount, chatLogId) {
      return immediate(() => debitAccount(db, id, amount, chatLogId));
    },
    async reserve(id, want, minimum, expiresAt) {
      return immediate(() => {
        db.run("DELETE FROM token_reservations WHERE account_id = ? AND expires_at <= ?", [id, Date.now()]);
        const tokens = accountById(db, id)?.tokens ?? 0;
        const held =
          db.query<{ n: number }, [number]>("SELECT COALESCE(SUM(amount), 0) AS n FROM token_reservations WHERE account_id = ?").get(id)
            ?.n ?? 0;
        const free = tokens - held;
        if (free < Math.max(1, minimum)) return null;
        const amount = Math.max(1, Math.min(want, free));
        const row = db
          .query<{ id: number }, [number, number, number]>(
            "INSERT INTO token_reservations (account_id, amount, expires_at) VALUES (?, ?, ?) RETURNING id",
          )
          .get(id, amount, expiresAt) as { id: number };
        return { id: row.id, amount };
      });
    },
    async release(reservationId) {
      db.run("DELETE FROM token_reservations WHERE id = ?", [reservationId]);
    },
    async ledger(id, limit = 100) {
      return db
        .query<LedgerRow, [number, number]>(
          // an answer's row names its deployment and question (while its chat log is kept)
          `SELECT l.delta, l.balance, l.reason, l.created_at, c.deployment_id, d.name AS deployment_name, c.question
             FROM token_ledger l LEFT JOIN chat_logs c ON c.id = l.chat_log_id LEFT JOIN deployments d ON d.id = c.deployment_id
            WHERE l.account_id = ? ORDER BY l.id DESC LIMIT ?`,
        )
        .all(id, limit)
        .map(toLedgerEntry);
    },
  };
}

import type { SQL } from "bun";
import type { Account } from "../../sqlite/repos/accounts.sqlite.ts";
import type { AccountsStore } from "../../contract/store.contract.ts";
import { first, flag, limitOf, num, type Raw, text } from "./values.ts";

const toAccount = (r: Raw): Account => ({
  id: num(r.id),
  email: r.email as string,
  tokens: num(r.tokens),
  disabled: flag(r.disabled),
  createdAt: num(r.created_at),
});

/**
 * Debits up to `amount` tokens (the balance floors at zero) and writes the ledger row: ONE statement that locks the
 * account row first (`FOR UPDATE`), so debits from any number of nodes serialise on the row and none overspends.
 * Runs on `sql` or inside a caller's transaction (a chat turn's). Returns the new balance; 0 for a missing account.
 */
export async function debitAccount(sql: SQL, id: number, amount: number, chatLogId: number | null): Promise<number> {
  const r = await first(sql`
    WITH old AS (SELECT id, tokens FROM accounts WHERE id = ${id} FOR UPDATE),
    upd AS (
      UPDATE accounts a SET tokens = old.tokens - LEAST(old.tokens, GREATEST(0, ${amount}::bigint))
        FROM old WHERE a.id = old.id
      RETURNING a.id, a.tokens AS balance, old.tokens - a.tokens AS take),
    ledger AS (
      INSERT INTO token_ledger (account_id, delta, balance, reason, chat_log_id, created_at)
      SELECT id, -take, balance, 'answer', ${chatLogId}::bigint, ${Date.now()}::bigint FROM upd WHERE take > 0)
    SELECT balance FROM upd`);
  return r ? num(r.balance) : 0;
}

/** The PostgreSQL twin of repos/accounts.repo.ts. */
export function createPgAccountsRepo(sql: SQL): AccountsStore {
  const byEmail = (email: string) => first(sql`SELECT * FROM accounts WHERE lower(email) = lower(${text(email)}::text COLLATE "C")`);
  const byId = (id: number) => first(sql`SELECT * FROM accounts WHERE id = ${id}`);
  return {
    async create(input: { email: string; passwordHash: string | null; tokens: number }): Promise<Account> {
      const at = Date.now();
      const row = await first(sql`
        WITH acc AS (
          INSERT INTO accounts (email, password_hash, tokens, created_at)
          VALUES (${text(input.email)}, ${input.passwordHash}, ${input.tokens}::bigint, ${at}::bigint) RETURNING *),
        ledger AS (
          INSERT INTO token_ledger (account_id, delta, balance, reason, created_at)
          SELECT id, tokens, tokens, 'grant', created_at FROM acc WHERE tokens > 0)
        SELECT * FROM acc`);
      return toAccount(row as Raw);
    },
    async findByEmail(email: string): Promise<Account | null> {
      const r = await byEmail(email);
      return r ? toAccount(r) : null;
    },
    async findById(id: number): Promise<Account | null> {
      const r = await byId(id);
      return r ? toAccount(r) : null;
    },
    async passwordHash(email: string): Promise<{ id: number; hash: string | null } | null> {
      const r = await byEmail(email);
      return r ? { id: num(r.id), hash: (r.password_hash as string | null) ?? null } : null;
    },
    async setPasswordHash(id: number, hash: string): Promise<void> {
      await sql`UPDATE accounts SET password_hash = ${hash} WHERE id = ${id}`;
    },
    async setDisabled(id: number, disabled: boolean): Promise<void> {
      await sql`UPDATE accounts SET disabled = ${disabled ? 1 : 0} WHERE id = ${id}`;
    },
    /** Sets the balance and records the difference in the ledger, in one statement under the row's lock. */
    async setTokens(id: number, tokens: number, reason = "set"): Promise<Account> {
      const r = await first(sql`
        WITH old AS (SELECT id, tokens FROM accounts WHERE id = ${id} FOR UPDATE),
        upd AS (UPDATE accounts a SET tokens = ${tokens}::bigint FROM old WHERE a.id = old.id RETURNING a.*, old.tokens AS before),
        ledger AS (
          INSERT INTO token_ledger (account_id, delta, balance, reason, created_at)
          SELECT id, tokens - before, tokens, ${reason}, ${Date.now()}::bigint FROM upd)
        SELECT * FROM upd`);
      if (!r) throw new Error("account vanished");
      return toAccount(r);
    },
    debit: (id: number, amount: number, chatLogId: number | null): Promise<number> => debitAccount(sql, id, amount, chatLogId),
    async ledger(id: number, limit = 100): Promise<{ delta: number; balance: number; reason: string; createdAt: number }[]> {
      const rows = (await sql`SELECT delta, balance, reason, created_at FROM token_ledger WHERE account_id = ${id}
        ORDER BY id DESC LIMIT ${limitOf(limit)}`) as Raw[];
      return rows.map((r) => ({ delta: num(r.delta), balance: num(r.balance), reason: r.reason as string, createdAt: num(r.created_at) }));
    },
  };
}

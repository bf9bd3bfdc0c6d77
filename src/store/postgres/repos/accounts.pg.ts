import type { SQL } from "bun";
import { type AccountRow, type AccountsStore, type LedgerRow, toAccount, toLedgerEntry } from "../../contract/accounts.contract.ts";
import { first, limitOf, rows, text } from "./values.ts";

/**
 * Debits up to `amount` tokens (the balance floors at zero) and writes the ledger row: ONE statement that locks the
 * account row first (`FOR UPDATE`), so debits from any number of nodes serialise on the row and none overspends.
 * Runs on `sql` or inside a caller's transaction. Returns the new balance; 0 for a missing account.
 */
export async function debitAccount(sql: SQL, id: number, amount: number, chatLogId: number | null): Promise<number> {
  const r = await first<{ balance: string }>(sql`
    WITH old AS (SELECT id, tokens FROM accounts WHERE id = ${id} FOR UPDATE),
    upd AS (
      UPDATE accounts a SET tokens = old.tokens - LEAST(old.tokens, GREATEST(0, ${amount}::bigint))
        FROM old WHERE a.id = old.id
      RETURNING a.id, a.tokens AS balance, old.tokens - a.tokens AS take),
    ledger AS (
      INSERT INTO token_ledger (account_id, delta, balance, reason, chat_log_id, created_at)
      SELECT id, -take, balance, 'answer', ${chatLogId}::bigint, ${Date.now()}::bigint FROM upd WHERE take > 0)
    SELECT balance FROM upd`);
  return r ? Number(r.balance) : 0;
}

/** Accounts on PostgreSQL: every balance change is one statement under the account row's lock. */
export function createPgAccountsRepo(sql: SQL): AccountsStore {
  const byEmail = (email: string) =>
    first<AccountRow>(sql`SELECT * FROM accounts WHERE lower(email) = lower(${text(email)}::text COLLATE "C")`);
  const maybe = (r: AccountRow | null) => (r ? toAccount(r) : null);
  return {
    async create(input) {
      const at = Date.now();
      const row = await first<AccountRow>(sql`
        WITH acc AS (
          INSERT INTO accounts (email, password_hash, tokens, created_at)
          VALUES (${text(input.email)}, ${input.passwordHash}, ${input.tokens}::bigint, ${at}::bigint) RETURNING *),
        ledger AS (
          INSERT INTO token_ledger (account_id, delta, balance, reason, created_at)
          SELECT id, tokens, tokens, 'grant', created_at FROM acc WHERE tokens > 0)
        SELECT * FROM acc`);
      if (!row) throw new Error("account insert returned no row");
      return toAccount(row);
    },
    findByEmail: async (email) => maybe(await byEmail(email)),
    findById: async (id) => maybe(await first<AccountRow>(sql`SELECT * FROM accounts WHERE id = ${id}`)),
    async passwordHash(email) {
      const r = await byEmail(email);
      return r ? { id: Number(r.id), hash: r.password_hash ?? null } : null;
    },
    async setPasswordHash(id, hash) {
      await sql`UPDATE accounts SET password_hash = ${hash} WHERE id = ${id}`;
    },
    async setDisabled(id, disabled) {
      await sql`UPDATE accounts SET disabled = ${disabled ? 1 : 0} WHERE id = ${id}`;
    },
    /** Sets the balance and records the difference in the ledger, in one statement under the row's lock. */
    async setTokens(id, tokens, reason = "set") {
      const r = await first<AccountRow>(sql`
        WITH old AS (SELECT id, tokens FROM accounts WHERE id = ${id} FOR UPDATE),
        upd AS (UPDATE accounts a SET tokens = ${tokens}::bigint FROM old WHERE a.id = old.id RETURNING a.*, old.tokens AS before),
        ledger AS (
          INSERT INTO token_ledger (account_id, delta, balance, reason, created_at)
          SELECT id, tokens - before, tokens, ${reason}, ${Date.now()}::bigint FROM upd)
        SELECT * FROM upd`);
      if (!r) throw new Error("account vanished");
      return toAccount(r);
    },
    debit: (id, amount, chatLogId) => debitAccount(sql, id, amount, chatLogId),
    /**
     * The account row is locked first, then (a second statement, so a fresh snapshot sees every reservation
     * committed while it waited) the free balance is computed and the reservation written: nodes never hold more
     * than there is.
     */
    async reserve(id, want, minimum, expiresAt) {
      return sql.begin(async (tx) => {
        const acc = await first<{ tokens: string }>(tx`SELECT tokens FROM accounts WHERE id = ${id} FOR UPDATE`);
        if (!acc) return null;
        await tx`DELETE FROM token_reservations WHERE account_id = ${id} AND expires_at <= ${Date.now()}::bigint`;
        const held = await first<{ n: string }>(
          tx`SELECT coalesce(sum(amount), 0)::int8 AS n FROM token_reservations WHERE account_id = ${id}`,
        );
        const free = Number(acc.tokens) - Number(held?.n ?? 0);
        if (free < Math.max(1, minimum)) return null;
        const amount = Math.max(1, Math.min(want, free));
        const row = await first<{ id: string }>(
          tx`INSERT INTO token_reservations (account_id, amount, expires_at) VALUES (${id}, ${amount}::bigint, ${expiresAt}::bigint) RETURNING id`,
        );
        return { id: Number(row?.id), amount };
      });
    },
    async release(reservationId) {
      await sql`DELETE FROM token_reservations WHERE id = ${reservationId}::bigint`;
    },
    async ledger(id, limit = 100) {
      return (
        await rows<LedgerRow>(sql`SELECT l.delta, l.balance, l.reason, l.created_at, c.deployment_id, d.name AS deployment_name, c.question
          FROM token_ledger l LEFT JOIN chat_logs c ON c.id = l.chat_log_id LEFT JOIN deployments d ON d.id = c.deployment_id
          WHERE l.account_id = ${id} ORDER BY l.id DESC LIMIT ${limitOf(limit)}`)
      ).map(toLedgerEntry);
    },
  };
}

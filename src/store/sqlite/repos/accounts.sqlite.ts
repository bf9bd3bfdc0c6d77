import type { Db } from "../db.ts";

export interface Account {
  id: number;
  email: string;
  tokens: number;
  disabled: boolean;
  createdAt: number;
}

interface AccountRow {
  id: number;
  email: string;
  password_hash: string | null;
  tokens: number;
  disabled: number;
  created_at: number;
}

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  email: r.email,
  tokens: r.tokens,
  disabled: r.disabled === 1,
  createdAt: r.created_at,
});

export function createAccountsRepo(db: Db) {
  const byEmail = db.query<AccountRow, [string]>("SELECT * FROM accounts WHERE email = ?");
  const byId = db.query<AccountRow, [number]>("SELECT * FROM accounts WHERE id = ?");
  return {
    create(input: { email: string; passwordHash: string | null; tokens: number }): Account {
      const at = Date.now();
      return db
        .transaction(() => {
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
        })
        .immediate();
    },
    findByEmail(email: string): Account | null {
      const r = byEmail.get(email);
      return r ? toAccount(r) : null;
    },
    findById(id: number): Account | null {
      const r = byId.get(id);
      return r ? toAccount(r) : null;
    },
    passwordHash(email: string): { id: number; hash: string | null } | null {
      const r = byEmail.get(email);
      return r ? { id: r.id, hash: r.password_hash } : null;
    },
    setPasswordHash(id: number, hash: string): void {
      db.run("UPDATE accounts SET password_hash = ? WHERE id = ?", [hash, id]);
    },
    setDisabled(id: number, disabled: boolean): void {
      db.run("UPDATE accounts SET disabled = ? WHERE id = ?", [disabled ? 1 : 0, id]);
    },
    /** Sets the balance and records the difference in the ledger, atomically. */
    setTokens(id: number, tokens: number, reason = "set"): Account {
      return db
        .transaction(() => {
          const before = byId.get(id);
          if (!before) throw new Error("account vanished");
          db.run("UPDATE accounts SET tokens = ? WHERE id = ?", [tokens, id]);
          db.run("INSERT INTO token_ledger (account_id, delta, balance, reason, created_at) VALUES (?, ?, ?, ?, ?)", [
            id,
            tokens - before.tokens,
            tokens,
            reason,
            Date.now(),
          ]);
          return toAccount({ ...before, tokens });
        })
        .immediate();
    },
    /**
     * Debits up to `amount` tokens in one IMMEDIATE transaction so concurrent answers never overspend;
     * the balance floors at zero. Returns the new balance.
     */
    debit(id: number, amount: number, chatLogId: number | null): number {
      return db
        .transaction(() => {
          const row = byId.get(id);
          if (!row) return 0;
          const take = Math.min(row.tokens, Math.max(0, amount));
          const balance = row.tokens - take;
          db.run("UPDATE accounts SET tokens = ? WHERE id = ?", [balance, id]);
          if (take > 0) {
            db.run(
              "INSERT INTO token_ledger (account_id, delta, balance, reason, chat_log_id, created_at) VALUES (?, ?, ?, 'answer', ?, ?)",
              [id, -take, balance, chatLogId, Date.now()],
            );
          }
          return balance;
        })
        .immediate();
    },
    ledger(id: number, limit = 100): { delta: number; balance: number; reason: string; createdAt: number }[] {
      return db
        .query<{ delta: number; balance: number; reason: string; created_at: number }, [number, number]>(
          "SELECT delta, balance, reason, created_at FROM token_ledger WHERE account_id = ? ORDER BY id DESC LIMIT ?",
        )
        .all(id, limit)
        .map((r) => ({ delta: r.delta, balance: r.balance, reason: r.reason, createdAt: r.created_at }));
    },
  };
}

export type AccountsRepo = ReturnType<typeof createAccountsRepo>;

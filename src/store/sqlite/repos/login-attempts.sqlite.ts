import type { Db } from "../db.ts";

/** Owner sign-in attempts that did not (yet) succeed, by email and client address. */
export function createLoginAttemptsRepo(db: Db) {
  const byPair = db.query<{ n: number; first: number | null }, [string, string, number]>(
    "SELECT COUNT(*) AS n, MIN(at) AS first FROM owner_login_attempts WHERE email = ? AND ip = ? AND at > ?",
  );
  const byIp = db.query<{ n: number; first: number | null }, [string, number]>(
    "SELECT COUNT(*) AS n, MIN(at) AS first FROM owner_login_attempts WHERE ip = ? AND at > ?",
  );
  return {
    /** Attempts since `since` for this email from this address, and from this address for any email. */
    count(email: string, ip: string, since: number): { pair: number; pairFirst: number | null; ip: number; ipFirst: number | null } {
      const p = byPair.get(email, ip, since);
      const i = byIp.get(ip, since);
      return { pair: p?.n ?? 0, pairFirst: p?.first ?? null, ip: i?.n ?? 0, ipFirst: i?.first ?? null };
    },
    record(email: string, ip: string, at: number): number {
      return Number(db.run("INSERT INTO owner_login_attempts (email, ip, at) VALUES (?, ?, ?)", [email, ip, at]).lastInsertRowid);
    },
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
    ): { allowed: boolean; oldest: number | null } {
      return db
        .transaction(() => {
          const verdict = attemptVerdict(this.count(email, ip, since), limits);
          if (verdict.allowed) this.record(email, ip, at);
          return verdict;
        })
        .immediate();
    },
    /** A right password clears that attempt and the earlier failures of the same email from the same address. */
    succeeded(email: string, ip: string): void {
      db.run("DELETE FROM owner_login_attempts WHERE email = ? AND ip = ?", [email, ip]);
    },
    /** Operator unlock: forgets the attempts for an email (from every address), or from one address. */
    clear(filter: { email?: string; ip?: string }): number {
      if (filter.email && filter.ip)
        return db.run("DELETE FROM owner_login_attempts WHERE email = ? AND ip = ?", [filter.email, filter.ip]).changes;
      if (filter.email) return db.run("DELETE FROM owner_login_attempts WHERE email = ?", [filter.email]).changes;
      if (filter.ip) return db.run("DELETE FROM owner_login_attempts WHERE ip = ?", [filter.ip]).changes;
      return 0;
    },
    prune(before: number): void {
      db.run("DELETE FROM owner_login_attempts WHERE at <= ?", [before]);
    },
  };
}

export type LoginAttemptsRepo = ReturnType<typeof createLoginAttemptsRepo>;

/** Over a limit: refused, with the oldest attempt of the window that is full (when it leaves, one more may try). */
export function attemptVerdict(
  c: { pair: number; pairFirst: number | null; ip: number; ipFirst: number | null },
  limits: { pair: number; ip: number },
): { allowed: boolean; oldest: number | null } {
  const oldest = c.pair >= limits.pair ? c.pairFirst : c.ip >= limits.ip ? c.ipFirst : null;
  return { allowed: oldest === null, oldest };
}

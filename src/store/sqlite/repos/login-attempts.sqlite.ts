import { type AttemptCountsRow, attemptVerdict, type LoginAttemptsStore, toAttemptCounts } from "../../contract/owner.contract.ts";
import type { Db } from "../db.ts";

/** Owner sign-in failures by email and client address (ok = 0), and the addresses each email signed in from (ok = 1). */
export function createSqliteLoginAttemptsRepo(db: Db): LoginAttemptsStore {
  const counts = db.query<AttemptCountsRow, [string, string, string, number]>(
    `SELECT COUNT(*) FILTER (WHERE email = ?1) AS pair, MIN(at) FILTER (WHERE email = ?2) AS pair_first, COUNT(*) AS ip, MIN(at) AS ip_first
       FROM owner_login_attempts WHERE ip = ?3 AND at > ?4 AND ok = 0`,
  );
  const accountQuery = db.query<{ n: number; first: number | null; known: number }, [number, string, number, string]>(
    `SELECT COUNT(*) FILTER (WHERE ok = 0 AND at > ?1) AS n, MIN(at) FILTER (WHERE ok = 0 AND at > ?1) AS first,
       COUNT(*) FILTER (WHERE ok = 1 AND ip = ?2 AND at > ?3) AS known
       FROM owner_login_attempts WHERE email = ?4`,
  );
  const count = (email: string, ip: string, since: number) => toAttemptCounts(counts.get(email, email, ip, since));
  const record = (email: string, ip: string, at: number) =>
    Number(db.run("INSERT INTO owner_login_attempts (email, ip, at) VALUES (?, ?, ?)", [email, ip, at]).lastInsertRowid);
  return {
    count: async (email, ip, since) => count(email, ip, since),
    record: async (email, ip, at) => record(email, ip, at),
    async attempt(email, ip, at, since, limits) {
      return db
        .transaction(() => {
          const a = limits.account;
          const acc = a ? accountQuery.get(a.since, ip, a.knownSince, email) : null;
          const verdict = attemptVerdict(
            { ...count(email, ip, since), account: acc?.n ?? 0, accountFirst: acc?.first ?? null, known: a ? (acc?.known ?? 0) > 0 : true },
            limits,
          );
          if (verdict.allowed) record(email, ip, at);
          return verdict;
        })
        .immediate();
    },
    async succeeded(email, ip, at = Date.now()) {
      db.transaction(() => {
        db.run("DELETE FROM owner_login_attempts WHERE email = ? AND ip = ?", [email, ip]);
        db.run("INSERT INTO owner_login_attempts (email, ip, at, ok) VALUES (?, ?, ?, 1)", [email, ip, at]);
      }).immediate();
    },
    async clear(filter) {
      if (filter.email && filter.ip)
        return db.run("DELETE FROM owner_login_attempts WHERE email = ? AND ip = ? AND ok = 0", [filter.email, filter.ip]).changes;
      if (filter.email) return db.run("DELETE FROM owner_login_attempts WHERE email = ? AND ok = 0", [filter.email]).changes;
      if (filter.ip) return db.run("DELETE FROM owner_login_attempts WHERE ip = ? AND ok = 0", [filter.ip]).changes;
      return 0;
    },
    async prune(before, knownBefore = -1) {
      db.run("DELETE FROM owner_login_attempts WHERE (ok = 0 AND at <= ?) OR (ok = 1 AND at <= ?)", [before, knownBefore]);
    },
  };
}

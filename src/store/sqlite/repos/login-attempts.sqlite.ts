import { type AttemptCountsRow, attemptVerdict, type LoginAttemptsStore, toAttemptCounts } from "../../contract/owner.contract.ts";
import type { Db } from "../db.ts";

/** Owner sign-in attempts that did not (yet) succeed, by email and client address. */
export function createSqliteLoginAttemptsRepo(db: Db): LoginAttemptsStore {
  const counts = db.query<AttemptCountsRow, [string, string, string, number]>(
    `SELECT COUNT(*) FILTER (WHERE email = ?1) AS pair, MIN(at) FILTER (WHERE email = ?2) AS pair_first, COUNT(*) AS ip, MIN(at) AS ip_first
       FROM owner_login_attempts WHERE ip = ?3 AND at > ?4`,
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
          const verdict = attemptVerdict(count(email, ip, since), limits);
          if (verdict.allowed) record(email, ip, at);
          return verdict;
        })
        .immediate();
    },
    async succeeded(email, ip) {
      db.run("DELETE FROM owner_login_attempts WHERE email = ? AND ip = ?", [email, ip]);
    },
    async clear(filter) {
      if (filter.email && filter.ip)
        return db.run("DELETE FROM owner_login_attempts WHERE email = ? AND ip = ?", [filter.email, filter.ip]).changes;
      if (filter.email) return db.run("DELETE FROM owner_login_attempts WHERE email = ?", [filter.email]).changes;
      if (filter.ip) return db.run("DELETE FROM owner_login_attempts WHERE ip = ?", [filter.ip]).changes;
      return 0;
    },
    async prune(before) {
      db.run("DELETE FROM owner_login_attempts WHERE at <= ?", [before]);
    },
  };
}

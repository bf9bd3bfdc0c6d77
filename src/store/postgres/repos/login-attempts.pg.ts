import type { SQL } from "bun";
import { type AttemptCountsRow, attemptVerdict, type LoginAttemptsStore, toAttemptCounts } from "../../contract/owner.contract.ts";
import { first, text } from "./values.ts";

/** Failed owner sign-ins on PostgreSQL, counted across every node. */
export function createPgLoginAttemptsRepo(sql: SQL): LoginAttemptsStore {
  const count = async (q: SQL, email: string, ip: string, since: number) =>
    toAttemptCounts(
      await first<AttemptCountsRow>(q`SELECT
          COUNT(*) FILTER (WHERE email = ${text(email)}) AS pair, MIN(at) FILTER (WHERE email = ${text(email)}) AS pair_first,
          COUNT(*) AS ip, MIN(at) AS ip_first
        FROM owner_login_attempts WHERE ip = ${text(ip)} AND at > ${since}::bigint`),
    );
  const record = async (q: SQL, email: string, ip: string, at: number) => {
    const row = await first<{ id: string }>(
      q`INSERT INTO owner_login_attempts (email, ip, at) VALUES (${text(email)}, ${text(ip)}, ${at}::bigint) RETURNING id`,
    );
    return Number(row?.id);
  };
  return {
    count: (email, ip, since) => count(sql, email, ip, since),
    record: (email, ip, at) => record(sql, email, ip, at),
    /** Count and record in one transaction under a lock per address (both limits count that address's attempts). */
    attempt(email, ip, at, since, limits) {
      return sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`login:${text(ip)}`}))`;
        const verdict = attemptVerdict(await count(tx, email, ip, since), limits);
        if (verdict.allowed) await record(tx, email, ip, at);
        return verdict;
      });
    },
    async succeeded(email, ip) {
      await sql`DELETE FROM owner_login_attempts WHERE email = ${text(email)} AND ip = ${text(ip)}`;
    },
    async clear(filter) {
      if (filter.email && filter.ip)
        return (await sql`DELETE FROM owner_login_attempts WHERE email = ${text(filter.email)} AND ip = ${text(filter.ip)}`).count;
      if (filter.email) return (await sql`DELETE FROM owner_login_attempts WHERE email = ${text(filter.email)}`).count;
      if (filter.ip) return (await sql`DELETE FROM owner_login_attempts WHERE ip = ${text(filter.ip)}`).count;
      return 0;
    },
    async prune(before) {
      await sql`DELETE FROM owner_login_attempts WHERE at <= ${before}::bigint`;
    },
  };
}

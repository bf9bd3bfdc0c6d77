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
        FROM owner_login_attempts WHERE ip = ${text(ip)} AND at > ${since}::bigint AND ok = 0`),
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
    /**
     * Count and record in one transaction, under a lock per address and one per email (taken in that order by every
     * caller): the pair, address and account limits all count the attempts they guard.
     */
    attempt(email, ip, at, since, limits) {
      return sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`login:${text(ip)}`}))`;
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`login-email:${text(email)}`}))`;
        const a = limits.account;
        const acc = a
          ? await first<{ n: string; first: string | null; known: string }>(tx`SELECT
              COUNT(*) FILTER (WHERE ok = 0 AND at > ${a.since}::bigint) AS n,
              MIN(at) FILTER (WHERE ok = 0 AND at > ${a.since}::bigint) AS first,
              COUNT(*) FILTER (WHERE ok = 1 AND ip = ${text(ip)} AND at > ${a.knownSince}::bigint) AS known
              FROM owner_login_attempts WHERE email = ${text(email)}`)
          : null;
        const verdict = attemptVerdict(
          {
            ...(await count(tx, email, ip, since)),
            account: Number(acc?.n ?? 0),
            accountFirst: acc?.first == null ? null : Number(acc.first),
            known: a ? Number(acc?.known ?? 0) > 0 : true,
          },
          limits,
        );
        if (verdict.allowed) await record(tx, email, ip, at);
        return verdict;
      });
    },
    async succeeded(email, ip, at = Date.now()) {
      await sql.begin(async (tx) => {
        await tx`DELETE FROM owner_login_attempts WHERE email = ${text(email)} AND ip = ${text(ip)}`;
        await tx`INSERT INTO owner_login_attempts (email, ip, at, ok) VALUES (${text(email)}, ${text(ip)}, ${at}::bigint, 1)`;
      });
    },
    async clear(filter) {
      if (filter.email && filter.ip)
        return (await sql`DELETE FROM owner_login_attempts WHERE email = ${text(filter.email)} AND ip = ${text(filter.ip)} AND ok = 0`)
          .count;
      if (filter.email) return (await sql`DELETE FROM owner_login_attempts WHERE email = ${text(filter.email)} AND ok = 0`).count;
      if (filter.ip) return (await sql`DELETE FROM owner_login_attempts WHERE ip = ${text(filter.ip)} AND ok = 0`).count;
      return 0;
    },
    async prune(before, knownBefore = -1) {
      await sql`DELETE FROM owner_login_attempts WHERE (ok = 0 AND at <= ${before}::bigint) OR (ok = 1 AND at <= ${knownBefore}::bigint)`;
    },
  };
}

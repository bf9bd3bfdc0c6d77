import type { SQL } from "bun";
import { attemptVerdict } from "../../sqlite/repos/login-attempts.sqlite.ts";
import type { LoginAttemptsStore } from "../../contract/store.contract.ts";
import { first, num, numOrNull, type Raw, text } from "./values.ts";

/** The PostgreSQL twin of repos/login-attempts.repo.ts: failed owner sign-ins, counted across every node. */
export function createPgLoginAttemptsRepo(sql: SQL): LoginAttemptsStore {
  const count = async (q: SQL, email: string, ip: string, since: number) => {
    const r = (await first(q`SELECT
          COUNT(*) FILTER (WHERE email = ${text(email)}) AS pair, MIN(at) FILTER (WHERE email = ${text(email)}) AS pair_first,
          COUNT(*) AS ip, MIN(at) AS ip_first
        FROM owner_login_attempts WHERE ip = ${text(ip)} AND at > ${since}::bigint`)) as Raw;
    return { pair: num(r.pair), pairFirst: numOrNull(r.pair_first), ip: num(r.ip), ipFirst: numOrNull(r.ip_first) };
  };
  const record = async (q: SQL, email: string, ip: string, at: number) => {
    const [row] =
      (await q`INSERT INTO owner_login_attempts (email, ip, at) VALUES (${text(email)}, ${text(ip)}, ${at}::bigint) RETURNING id`) as Raw[];
    return num(row?.id);
  };
  return {
    /** Attempts since `since` for this email from this address, and from this address for any email. */
    count: (email, ip, since) => count(sql, email, ip, since),
    record: (email, ip, at) => record(sql, email, ip, at),
    /** Count and record in one transaction under a lock per address (both limits count that address's attempts). */
    async attempt(email, ip, at, since, limits) {
      return (await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`login:${text(ip)}`}))`;
        const verdict = attemptVerdict(await count(tx, email, ip, since), limits);
        if (verdict.allowed) await record(tx, email, ip, at);
        return verdict;
      })) as { allowed: boolean; oldest: number | null };
    },
    /** A right password clears that attempt and the earlier failures of the same email from the same address. */
    async succeeded(email: string, ip: string): Promise<void> {
      await sql`DELETE FROM owner_login_attempts WHERE email = ${text(email)} AND ip = ${text(ip)}`;
    },
    /** Operator unlock: forgets the attempts for an email (from every address), or from one address. */
    async clear(filter: { email?: string; ip?: string }): Promise<number> {
      if (filter.email && filter.ip)
        return (await sql`DELETE FROM owner_login_attempts WHERE email = ${text(filter.email)} AND ip = ${text(filter.ip)}`).count;
      if (filter.email) return (await sql`DELETE FROM owner_login_attempts WHERE email = ${text(filter.email)}`).count;
      if (filter.ip) return (await sql`DELETE FROM owner_login_attempts WHERE ip = ${text(filter.ip)}`).count;
      return 0;
    },
    async prune(before: number): Promise<void> {
      await sql`DELETE FROM owner_login_attempts WHERE at <= ${before}::bigint`;
    },
  };
}

import type { SQL } from "bun";
import type { OwnerSession } from "../../sqlite/repos/owner-sessions.sqlite.ts";
import type { OwnerSessionsStore } from "../../contract/store.contract.ts";
import { first, num, type Raw } from "./values.ts";

const toSession = (r: Raw): OwnerSession => ({
  idHash: r.id_hash as string,
  accountId: num(r.account_id),
  createdAt: num(r.created_at),
  lastSeenAt: num(r.last_seen_at),
  expiresAt: num(r.expires_at),
});

/** The PostgreSQL twin of repos/owner-sessions.repo.ts: console sessions shared by every node, by id hash. */
export function createPgOwnerSessionsRepo(sql: SQL): OwnerSessionsStore {
  return {
    async create(s: OwnerSession): Promise<void> {
      await sql`INSERT INTO owner_sessions (id_hash, account_id, created_at, last_seen_at, expires_at)
        VALUES (${s.idHash}, ${s.accountId}, ${s.createdAt}::bigint, ${s.lastSeenAt}::bigint, ${s.expiresAt}::bigint)`;
    },
    async find(idHash: string): Promise<OwnerSession | null> {
      const r = await first(sql`SELECT * FROM owner_sessions WHERE id_hash = ${idHash}`);
      return r ? toSession(r) : null;
    },
    async touch(idHash: string, at: number): Promise<void> {
      await sql`UPDATE owner_sessions SET last_seen_at = ${at}::bigint WHERE id_hash = ${idHash}`;
    },
    async remove(idHash: string): Promise<void> {
      await sql`DELETE FROM owner_sessions WHERE id_hash = ${idHash}`;
    },
    /** Signs an account out everywhere, except (optionally) the session that asked. */
    async removeForAccount(accountId: number, exceptIdHash = ""): Promise<number> {
      return (await sql`DELETE FROM owner_sessions WHERE account_id = ${accountId} AND id_hash <> ${exceptIdHash}`).count;
    },
    /** Drops sessions past either timeout; returns how many. */
    async purge(now: number, idleMs: number): Promise<number> {
      return (await sql`DELETE FROM owner_sessions WHERE expires_at <= ${now}::bigint OR last_seen_at <= ${now - idleMs}::bigint`).count;
    },
  };
}

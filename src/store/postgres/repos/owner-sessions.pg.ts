import type { SQL } from "bun";
import { type OwnerSessionRow, type OwnerSessionsStore, toSession } from "../../contract/owner.contract.ts";
import { first } from "./values.ts";

/** Console sessions on PostgreSQL, shared by every node, by id hash. */
export function createPgOwnerSessionsRepo(sql: SQL): OwnerSessionsStore {
  return {
    async create(s) {
      await sql`INSERT INTO owner_sessions (id_hash, account_id, created_at, last_seen_at, expires_at)
        VALUES (${s.idHash}, ${s.accountId}, ${s.createdAt}::bigint, ${s.lastSeenAt}::bigint, ${s.expiresAt}::bigint)`;
    },
    async find(idHash) {
      const r = await first<OwnerSessionRow>(sql`SELECT * FROM owner_sessions WHERE id_hash = ${idHash}`);
      return r ? toSession(r) : null;
    },
    async touch(idHash, at) {
      await sql`UPDATE owner_sessions SET last_seen_at = ${at}::bigint WHERE id_hash = ${idHash}`;
    },
    async remove(idHash) {
      await sql`DELETE FROM owner_sessions WHERE id_hash = ${idHash}`;
    },
    async removeForAccount(accountId, exceptIdHash = "") {
      return (await sql`DELETE FROM owner_sessions WHERE account_id = ${accountId} AND id_hash <> ${exceptIdHash}`).count;
    },
    async purge(now, idleMs) {
      return (await sql`DELETE FROM owner_sessions WHERE expires_at <= ${now}::bigint OR last_seen_at <= ${now - idleMs}::bigint`).count;
    },
  };
}

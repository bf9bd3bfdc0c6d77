import { type OwnerSessionRow, type OwnerSessionsStore, toSession } from "../../contract/owner.contract.ts";
import type { Db } from "../db.ts";

/** Console sessions, addressed only by the SHA-256 of their id. */
export function createSqliteOwnerSessionsRepo(db: Db): OwnerSessionsStore {
  const byHash = db.query<OwnerSessionRow, [string]>("SELECT * FROM owner_sessions WHERE id_hash = ?");
  return {
    async create(s) {
      db.run("INSERT INTO owner_sessions (id_hash, account_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)", [
        s.idHash,
        s.accountId,
        s.createdAt,
        s.lastSeenAt,
        s.expiresAt,
      ]);
    },
    async find(idHash) {
      const r = byHash.get(idHash);
      return r ? toSession(r) : null;
    },
    async touch(idHash, at) {
      db.run("UPDATE owner_sessions SET last_seen_at = ? WHERE id_hash = ?", [at, idHash]);
    },
    async remove(idHash) {
      db.run("DELETE FROM owner_sessions WHERE id_hash = ?", [idHash]);
    },
    async removeForAccount(accountId, exceptIdHash = "") {
      return db.run("DELETE FROM owner_sessions WHERE account_id = ? AND id_hash <> ?", [accountId, exceptIdHash]).changes;
    },
    async purge(now, idleMs) {
      return db.run("DELETE FROM owner_sessions WHERE expires_at <= ? OR last_seen_at <= ?", [now, now - idleMs]).changes;
    },
  };
}

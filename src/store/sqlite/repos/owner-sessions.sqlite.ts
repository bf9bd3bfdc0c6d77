import type { Db } from "../db.ts";

export interface OwnerSession {
  idHash: string;
  accountId: number;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

interface Row {
  id_hash: string;
  account_id: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

const toSession = (r: Row): OwnerSession => ({
  idHash: r.id_hash,
  accountId: r.account_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
});

/** Console sessions, addressed only by the SHA-256 of their id. */
export function createOwnerSessionsRepo(db: Db) {
  const byHash = db.query<Row, [string]>("SELECT * FROM owner_sessions WHERE id_hash = ?");
  return {
    create(s: OwnerSession): void {
      db.run("INSERT INTO owner_sessions (id_hash, account_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)", [
        s.idHash,
        s.accountId,
        s.createdAt,
        s.lastSeenAt,
        s.expiresAt,
      ]);
    },
    find(idHash: string): OwnerSession | null {
      const r = byHash.get(idHash);
      return r ? toSession(r) : null;
    },
    touch(idHash: string, at: number): void {
      db.run("UPDATE owner_sessions SET last_seen_at = ? WHERE id_hash = ?", [at, idHash]);
    },
    remove(idHash: string): void {
      db.run("DELETE FROM owner_sessions WHERE id_hash = ?", [idHash]);
    },
    /** Signs an account out everywhere, except (optionally) the session that asked. */
    removeForAccount(accountId: number, exceptIdHash = ""): number {
      return db.run("DELETE FROM owner_sessions WHERE account_id = ? AND id_hash <> ?", [accountId, exceptIdHash]).changes;
    },
    /** Drops sessions past either timeout; returns how many. */
    purge(now: number, idleMs: number): number {
      return db.run("DELETE FROM owner_sessions WHERE expires_at <= ? OR last_seen_at <= ?", [now, now - idleMs]).changes;
    },
  };
}

export type OwnerSessionsRepo = ReturnType<typeof createOwnerSessionsRepo>;

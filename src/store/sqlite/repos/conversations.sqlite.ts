import type { ConversationsStore } from "../../contract/chat-logs.contract.ts";
import type { Db } from "../db.ts";

/** Creates the thread or bumps its time; false when the id belongs to another deployment. In a caller's transaction too. */
export function touchConversation(db: Db, deploymentId: string, id: string, at: number): boolean {
  const r = db.run(
    `INSERT INTO conversations (id, deployment_id, created_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at WHERE conversations.deployment_id = excluded.deployment_id`,
    [id, deploymentId, at, at],
  );
  return r.changes > 0;
}

export function createSqliteConversationsRepo(db: Db): ConversationsStore {
  const find = db.query<{ id: string }, [string, string]>("SELECT id FROM conversations WHERE id = ? AND deployment_id = ?");
  return {
    exists: async (deploymentId, id) => find.get(id, deploymentId) !== null,
    touch: async (deploymentId, id, at = Date.now()) => touchConversation(db, deploymentId, id, at),
  };
}

import type { Db } from "../db.ts";

/** Conversation threads. Every lookup takes the deployment: another deployment's thread does not exist here. */
export function createConversationsRepo(db: Db) {
  const find = db.query<{ id: string }, [string, string]>("SELECT id FROM conversations WHERE id = ? AND deployment_id = ?");
  return {
    exists(deploymentId: string, id: string): boolean {
      return find.get(id, deploymentId) !== null;
    },
    /** Creates the thread or bumps its time; false when the id belongs to another deployment. */
    touch(deploymentId: string, id: string, at = Date.now()): boolean {
      const r = db.run(
        `INSERT INTO conversations (id, deployment_id, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at WHERE conversations.deployment_id = excluded.deployment_id`,
        [id, deploymentId, at, at],
      );
      return r.changes > 0;
    },
  };
}

export type ConversationsRepo = ReturnType<typeof createConversationsRepo>;

import type { SQL } from "bun";
import type { ConversationsStore } from "../../contract/store.contract.ts";
import { text } from "./values.ts";

/** Creates the thread or bumps its time; false when the id belongs to another deployment. */
async function touchConversation(sql: SQL, deploymentId: string, id: string, at: number): Promise<boolean> {
  const r =
    await sql`INSERT INTO conversations (id, deployment_id, created_at, updated_at) VALUES (${text(id)}, ${deploymentId}, ${at}::bigint, ${at}::bigint)
    ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at WHERE conversations.deployment_id = excluded.deployment_id`;
  return r.count > 0;
}

/** The PostgreSQL twin of repos/conversations.repo.ts: every lookup takes the deployment. */
export function createPgConversationsRepo(sql: SQL): ConversationsStore {
  return {
    async exists(deploymentId: string, id: string): Promise<boolean> {
      const rows = await sql`SELECT 1 FROM conversations WHERE id = ${text(id)} AND deployment_id = ${deploymentId}`;
      return rows.length > 0;
    },
    touch: (deploymentId: string, id: string, at = Date.now()): Promise<boolean> => touchConversation(sql, deploymentId, id, at),
  };
}

import type { SQL } from "bun";
import type { ConversationsStore } from "../../contract/chat-logs.contract.ts";
import { text } from "./values.ts";

/** Conversation threads on PostgreSQL: every lookup takes the deployment. */
export function createPgConversationsRepo(sql: SQL): ConversationsStore {
  return {
    async exists(deploymentId, id) {
      const found = await sql`SELECT 1 FROM conversations WHERE id = ${text(id)} AND deployment_id = ${deploymentId}`;
      return found.length > 0;
    },
    async touch(deploymentId, id, at = Date.now()) {
      const r =
        await sql`INSERT INTO conversations (id, deployment_id, created_at, updated_at) VALUES (${text(id)}, ${deploymentId}, ${at}::bigint, ${at}::bigint)
        ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at WHERE conversations.deployment_id = excluded.deployment_id`;
      return r.count > 0;
    },
  };
}

import type { SQL } from "bun";
import {
  type ChatLogExportStore,
  EXPORT_COLUMNS,
  type ExportPageQuery,
  type ExportRow,
  toExported,
} from "../../contract/chat-log-export.contract.ts";
import type { Raw } from "./values.ts";

/** The PostgreSQL twin of sqlite/repos/chat-log-export.sqlite.ts (index chat_logs_deployment_created_id). */
export function createPgChatLogExportRepo(sql: SQL): ChatLogExportStore {
  return {
    async page(deploymentId: string, q: ExportPageQuery) {
      const after = q.after ?? { createdAt: q.from - 1, id: 0 };
      const rows = (await sql.unsafe(
        `SELECT ${EXPORT_COLUMNS} FROM chat_logs WHERE deployment_id = $1 AND created_at >= $2::bigint AND created_at < $3::bigint
          AND (created_at, id) > ($4::bigint, $5::bigint) ORDER BY created_at, id LIMIT $6::integer`,
        [deploymentId, q.from, q.to, after.createdAt, after.id, q.limit],
      )) as Raw[];
      return rows.map((r) => toExported(r as unknown as ExportRow));
    },
  };
}

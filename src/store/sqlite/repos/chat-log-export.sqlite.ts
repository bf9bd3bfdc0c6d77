import { type ChatLogExportStore, EXPORT_COLUMNS, type ExportRow, toExported } from "../../contract/chat-log-export.contract.ts";
import type { Db } from "../db.ts";

/**
 * A deployment's chat logs for a date range, one bounded page at a time in (created_at, id) order (keyset paging
 * on the deployment/time index), so an export of a year of logs never holds more than a page.
 */
export function createSqliteChatLogExportRepo(db: Db): ChatLogExportStore {
  const page = db.query<ExportRow, [string, number, number, number, number, number]>(
    `SELECT ${EXPORT_COLUMNS} FROM chat_logs WHERE deployment_id = ? AND created_at >= ? AND created_at < ? AND (created_at, id) > (?, ?)
      ORDER BY created_at, id LIMIT ?`,
  );
  return {
    async page(deploymentId, q) {
      const after = q.after ?? { createdAt: q.from - 1, id: 0 };
      return page.all(deploymentId, q.from, q.to, after.createdAt, after.id, q.limit).map(toExported);
    },
  };
}

import type { SQL } from "bun";
import type { ConversationLogsStore, SummaryRow, TurnRow } from "../../contract/owner-insight.contract.ts";
import { toGap, toPassage, toSummary, toTurn } from "../../contract/owner-insight.contract.ts";
import { conversationsSql, filterSql, GAP_SQL, TURN_COLS } from "../../shared/owner-insight-sql.ts";
import { text } from "./values.ts";

/** The PostgreSQL twin of sqlite/repos/conversation-logs.sqlite.ts (the same SQL text, numbered $n parameters). */
export function createPgConversationLogsRepo(sql: SQL): ConversationLogsStore {
  return {
    async conversations(deploymentId, f) {
      const args: (string | number)[] = [deploymentId, f.beforeId ?? Number.MAX_SAFE_INTEGER, f.limit];
      const where = filterSql(f, {
        param: (v) => {
          args.push(typeof v === "string" ? text(v) : v);
          return `$${args.length}`;
        },
        contains: (hay, needle) => `strpos(lower(${hay}), ${needle}::text) > 0`,
      });
      const rows = (await sql.unsafe(conversationsSql(where, "$1::text", "$2::bigint", "$3::bigint"), args)) as SummaryRow[];
      return rows.map(toSummary);
    },
    async conversation(deploymentId, conversationId) {
      const rows = (await sql.unsafe(
        `SELECT ${TURN_COLS} FROM chat_logs c WHERE c.deployment_id = $1 AND c.conversation_id = $2 ORDER BY c.id LIMIT 500`,
        [deploymentId, text(conversationId)],
      )) as TurnRow[];
      return rows.map(toTurn);
    },
    async turn(deploymentId, id) {
      const rows = (await sql.unsafe(`SELECT ${TURN_COLS} FROM chat_logs c WHERE c.deployment_id = $1 AND c.id = $2::bigint`, [
        deploymentId,
        id,
      ])) as TurnRow[];
      return rows[0] ? toTurn(rows[0]) : null;
    },
    async gapCandidates(deploymentId, sinceMs, limit) {
      const rows = (await sql.unsafe(GAP_SQL("$1::text", "$2::bigint", "$3::bigint"), [deploymentId, sinceMs, limit])) as Record<
        string,
        unknown
      >[];
      return rows.map(toGap);
    },
    async questions(deploymentId, sinceMs, limit) {
      const rows = (await sql`SELECT question FROM chat_logs WHERE deployment_id = ${deploymentId} AND created_at >= ${sinceMs}::bigint
        AND question <> '' ORDER BY id DESC LIMIT ${limit}`) as { question: string }[];
      return rows.map((r) => r.question);
    },
    async passages(deploymentId, documentId, fromOrd, limit) {
      const rows = (await sql`SELECT id, ord, text, heading_path, page_start, page_end, row_start, row_end FROM chunks
        WHERE deployment_id = ${deploymentId} AND document_id = ${documentId} AND ord >= ${fromOrd} ORDER BY ord LIMIT ${limit}`) as Record<
        string,
        unknown
      >[];
      return rows.map(toPassage);
    },
    async passageOrd(deploymentId, documentId, chunkId) {
      const rows = (await sql`SELECT ord FROM chunks WHERE id = ${chunkId}::bigint AND deployment_id = ${deploymentId}
        AND document_id = ${documentId}`) as { ord: number }[];
      return rows[0] ? Number(rows[0].ord) : null;
    },
    async questionCount(deploymentId, sinceMs) {
      const rows =
        (await sql`SELECT COUNT(*) AS n FROM chat_logs WHERE deployment_id = ${deploymentId} AND created_at >= ${sinceMs}::bigint`) as {
          n: string;
        }[];
      return Number(rows[0]?.n ?? 0);
    },
  };
}

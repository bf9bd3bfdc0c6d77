import type { ChatLogFilter, ConversationLogsStore, SummaryRow, TurnRow } from "../../contract/owner-insight.contract.ts";
import { toGap, toPassage, toSummary, toTurn } from "../../contract/owner-insight.contract.ts";
import { conversationsSql, filterSql, GAP_SQL, TURN_COLS } from "../../shared/owner-insight-sql.ts";
import type { Db } from "../db.ts";

/** The owner's chat logs as conversations, one conversation's turns, and the questions content gaps group. */
export function createSqliteConversationLogsRepo(db: Db): ConversationLogsStore {
  return {
    async conversations(deploymentId: string, f: ChatLogFilter) {
      // numbered parameters: ?1 deployment, ?2 cursor, ?3 limit, then the filter's own
      const args: (string | number)[] = [];
      const where = filterSql(f, {
        param: (v) => {
          args.push(v);
          return `?${args.length + 3}`;
        },
        contains: (hay, needle) => `instr(lower(${hay}), ${needle}) > 0`,
      });
      return db
        .query<SummaryRow, (string | number)[]>(conversationsSql(where, "?1", "?2", "?3"))
        .all(deploymentId, f.beforeId ?? Number.MAX_SAFE_INTEGER, f.limit, ...args)
        .map(toSummary);
    },
    async conversation(deploymentId: string, conversationId: string) {
      return db
        .query<TurnRow, [string, string]>(
          `SELECT ${TURN_COLS} FROM chat_logs c WHERE c.deployment_id = ? AND c.conversation_id = ? ORDER BY c.id LIMIT 500`,
        )
        .all(deploymentId, conversationId)
        .map(toTurn);
    },
    async turn(deploymentId: string, id: number) {
      const r = db
        .query<TurnRow, [string, number]>(`SELECT ${TURN_COLS} FROM chat_logs c WHERE c.deployment_id = ? AND c.id = ?`)
        .get(deploymentId, id);
      return r ? toTurn(r) : null;
    },
    /** Refused, weak, rated-0 and handed-off questions since `sinceMs`, newest first (corrected answers excluded). */
    async gapCandidates(deploymentId: string, sinceMs: number, limit: number) {
      return db
        .query<Record<string, unknown>, [string, number, number]>(GAP_SQL("?1", "?2", "?3"))
        .all(deploymentId, sinceMs, limit)
        .map(toGap);
    },
    /** The newest `limit` questions asked since `sinceMs` (how telling each word is, for grouping gaps). */
    async questions(deploymentId: string, sinceMs: number, limit: number) {
      return db
        .query<{ question: string }, [string, number, number]>(
          "SELECT question FROM chat_logs WHERE deployment_id = ? AND created_at >= ? AND question <> '' ORDER BY id DESC LIMIT ?",
        )
        .all(deploymentId, sinceMs, limit)
        .map((r) => r.question);
    },
    /** A document's passages in order from `fromOrd` (the citation viewer); another deployment's document has none. */
    async passages(deploymentId: string, documentId: string, fromOrd: number, limit: number) {
      return db
        .query<Record<string, unknown>, [string, string, number, number]>(
          `SELECT id, ord, text, heading_path, page_start, page_end, row_start, row_end FROM chunks
            WHERE deployment_id = ? AND document_id = ? AND ord >= ? ORDER BY ord LIMIT ?`,
        )
        .all(deploymentId, documentId, fromOrd, limit)
        .map(toPassage);
    },
    /** The ord of one passage of a document (where the viewer starts), or null. */
    async passageOrd(deploymentId: string, documentId: string, chunkId: number) {
      return (
        db
          .query<{ ord: number }, [number, string, string]>("SELECT ord FROM chunks WHERE id = ? AND deployment_id = ? AND document_id = ?")
          .get(chunkId, deploymentId, documentId)?.ord ?? null
      );
    },
    /** How many questions were asked since `sinceMs` (the gaps report's denominator). */
    async questionCount(deploymentId: string, sinceMs: number) {
      return (
        db
          .query<{ n: number }, [string, number]>("SELECT COUNT(*) AS n FROM chat_logs WHERE deployment_id = ? AND created_at >= ?")
          .get(deploymentId, sinceMs)?.n ?? 0
      );
    },
  };
}

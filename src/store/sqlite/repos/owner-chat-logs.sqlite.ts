import type { Db } from "../db.ts";
import { parseSources } from "./chat-log-feedback.sqlite.ts";

export interface OwnerChatLog {
  id: number;
  conversationId: string;
  question: string;
  answer: string;
  sources: string[];
  refused: boolean;
  rating: 0 | 1 | null;
  correctionId: number | null;
  tokens: number;
  visitorEmail: string | null;
  createdAt: number;
}

interface Row {
  id: number;
  conversation_id: string;
  question: string;
  answer: string;
  sources: string;
  refused: number;
  rating: 0 | 1 | null;
  correction_id: number | null;
  tokens: number;
  visitor_email: string | null;
  created_at: number;
}

const COLS =
  "id, conversation_id, question, answer, sources, refused, rating, correction_id, prompt_tokens + completion_tokens AS tokens, visitor_email, created_at";

const toLog = (r: Row): OwnerChatLog => ({
  id: r.id,
  conversationId: r.conversation_id,
  question: r.question,
  answer: r.answer,
  sources: parseSources(r.sources),
  refused: r.refused === 1,
  rating: r.rating,
  correctionId: r.correction_id,
  tokens: r.tokens,
  visitorEmail: r.visitor_email,
  createdAt: r.created_at,
});

/** The owner's view of chat logs; every query takes the deployment id, so other deployments' logs are "not found". */
export function createOwnerChatLogsRepo(db: Db) {
  return {
    list(deploymentId: string, opts: { limit: number; beforeId?: number }): OwnerChatLog[] {
      return db
        .query<Row, [string, number, number]>(`SELECT ${COLS} FROM chat_logs WHERE deployment_id = ? AND id < ? ORDER BY id DESC LIMIT ?`)
        .all(deploymentId, opts.beforeId ?? Number.MAX_SAFE_INTEGER, opts.limit)
        .map(toLog);
    },
    find(deploymentId: string, id: number): OwnerChatLog | null {
      const r = db.query<Row, [number, string]>(`SELECT ${COLS} FROM chat_logs WHERE id = ? AND deployment_id = ?`).get(id, deploymentId);
      return r ? toLog(r) : null;
    },
  };
}

export type OwnerChatLogsRepo = ReturnType<typeof createOwnerChatLogsRepo>;

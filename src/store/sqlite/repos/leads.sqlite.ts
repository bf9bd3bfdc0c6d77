import type { Db } from "../db.ts";
import type { MailDraft, OutboxRepo, OutboxStatus } from "./outbox.sqlite.ts";

export interface Lead {
  id: number;
  deploymentId: string;
  conversationId: string | null;
  chatLogId: number | null;
  email: string;
  name: string;
  message: string;
  refusedQuestion: string;
  createdAt: number;
}

/** A lead as the owner sees it: with the state of its notification mail (null when none was queued). */
export interface LeadWithMail extends Lead {
  mail: { status: OutboxStatus; attempts: number; lastError: string | null; sentAt: number | null; sentVia: string | null } | null;
}

interface LeadRow {
  id: number;
  deployment_id: string;
  conversation_id: string | null;
  chat_log_id: number | null;
  email: string;
  name: string;
  message: string;
  refused_question: string;
  created_at: number;
}

interface LeadMailRow extends LeadRow {
  mail_status: OutboxStatus | null;
  mail_attempts: number | null;
  mail_last_error: string | null;
  mail_sent_at: number | null;
  mail_sent_via: string | null;
}

const toLead = (r: LeadRow): Lead => ({
  id: r.id,
  deploymentId: r.deployment_id,
  conversationId: r.conversation_id,
  chatLogId: r.chat_log_id,
  email: r.email,
  name: r.name,
  message: r.message,
  refusedQuestion: r.refused_question,
  createdAt: r.created_at,
});

export type LeadInput = Omit<Lead, "id" | "createdAt">;

export function createLeadsRepo(db: Db, deps: { outbox: OutboxRepo }) {
  return {
    /**
     * Stores the lead and its notification mail in ONE transaction: either both exist or neither, so a
     * crash can never leave a lead whose owner is not told, nor a mail about a lead that was not kept.
     */
    createWithMail(input: LeadInput, compose: (lead: Lead) => MailDraft, at = Date.now()): Lead {
      return db
        .transaction(() => {
          const row = db
            .query<LeadRow, [string, string | null, number | null, string, string, string, string, number]>(
              `INSERT INTO leads (deployment_id, conversation_id, chat_log_id, email, name, message, refused_question, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
            )
            .get(
              input.deploymentId,
              input.conversationId,
              input.chatLogId,
              input.email,
              input.name,
              input.message,
              input.refusedQuestion,
              at,
            ) as LeadRow;
          const lead = toLead(row);
          deps.outbox.enqueue({ ...compose(lead), leadId: lead.id }, at);
          return lead;
        })
        .immediate();
    },
    /** The lead already recorded for this refusal and email, if any (case-insensitive email). */
    findForRefusal(deploymentId: string, chatLogId: number, email: string): Lead | null {
      const r = db
        .query<LeadRow, [string, number, string]>(
          "SELECT * FROM leads WHERE deployment_id = ? AND chat_log_id = ? AND email = ? COLLATE NOCASE ORDER BY id LIMIT 1",
        )
        .get(deploymentId, chatLogId, email);
      return r ? toLead(r) : null;
    },
    /**
     * Newest first. `limit` pages (default: every lead); `beforeId` continues after the last id of a page, so
     * each page is one indexed range, however many leads there are.
     */
    list(deploymentId: string, page: { limit?: number; beforeId?: number } = {}): LeadWithMail[] {
      return db
        .query<LeadMailRow, [string, number, number]>(
          `SELECT l.*, m.status AS mail_status, m.attempts AS mail_attempts, m.last_error AS mail_last_error,
                  m.sent_at AS mail_sent_at, m.sent_via AS mail_sent_via
             FROM leads l LEFT JOIN mail_outbox m ON m.id = (SELECT MAX(id) FROM mail_outbox WHERE lead_id = l.id)
            WHERE l.deployment_id = ? AND l.id < ? ORDER BY l.id DESC LIMIT ?`,
        )
        .all(deploymentId, page.beforeId ?? Number.MAX_SAFE_INTEGER, page.limit ?? -1)
        .map((r) => ({
          ...toLead(r),
          mail:
            r.mail_status === null
              ? null
              : {
                  status: r.mail_status,
                  attempts: r.mail_attempts ?? 0,
                  lastError: r.mail_last_error,
                  sentAt: r.mail_sent_at,
                  sentVia: r.mail_sent_via,
                },
        }));
    },
  };
}

export type LeadsRepo = ReturnType<typeof createLeadsRepo>;

import { type LeadMailRow, type LeadRow, type LeadsStore, toLead, toLeadWithMail } from "../../contract/leads.contract.ts";
import type { Db } from "../db.ts";
import { enqueueMail } from "./outbox.sqlite.ts";

export function createSqliteLeadsRepo(db: Db): LeadsStore {
  return {
    async createWithMail(input, compose, at = Date.now()) {
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
          enqueueMail(db, { ...compose(lead), leadId: lead.id }, at);
          return lead;
        })
        .immediate();
    },
    async findForRefusal(deploymentId, chatLogId, email) {
      const r = db
        .query<LeadRow, [string, number, string]>(
          "SELECT * FROM leads WHERE deployment_id = ? AND chat_log_id = ? AND email = ? COLLATE NOCASE ORDER BY id LIMIT 1",
        )
        .get(deploymentId, chatLogId, email);
      return r ? toLead(r) : null;
    },
    async list(deploymentId, page = {}) {
      return db
        .query<LeadMailRow, [string, number, number]>(
          `SELECT l.*, m.status AS mail_status, m.attempts AS mail_attempts, m.last_error AS mail_last_error,
                  m.sent_at AS mail_sent_at, m.sent_via AS mail_sent_via
             FROM leads l LEFT JOIN mail_outbox m ON m.id = (SELECT MAX(id) FROM mail_outbox WHERE lead_id = l.id)
            WHERE l.deployment_id = ? AND l.id < ? ORDER BY l.id DESC LIMIT ?`,
        )
        .all(deploymentId, page.beforeId ?? Number.MAX_SAFE_INTEGER, page.limit ?? -1)
        .map(toLeadWithMail);
    },
  };
}

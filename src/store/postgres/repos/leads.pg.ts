import type { SQL } from "bun";
import { type LeadMailRow, type LeadRow, type LeadsStore, toLead, toLeadWithMail } from "../../contract/leads.contract.ts";
import { enqueueMail } from "./outbox.pg.ts";
import { first, limitOf, rows, text } from "./values.ts";

/** ASCII-only lower case: SQLite's NOCASE folds A-Z and nothing else. */
const ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz";

export function createPgLeadsRepo(sql: SQL): LeadsStore {
  return {
    createWithMail(input, compose, at = Date.now()) {
      return sql.begin(async (tx) => {
        const row =
          await first<LeadRow>(tx`INSERT INTO leads (deployment_id, conversation_id, chat_log_id, email, name, message, refused_question, created_at)
          VALUES (${input.deploymentId}, ${text(input.conversationId)}, ${input.chatLogId}::bigint, ${text(input.email)}, ${text(input.name)}, ${text(input.message)},
            ${text(input.refusedQuestion)}, ${at}::bigint)
          RETURNING *`);
        if (!row) throw new Error("lead insert returned no row");
        const lead = toLead(row);
        await enqueueMail(tx, { ...compose(lead), leadId: lead.id }, at);
        return lead;
      });
    },
    async findForRefusal(deploymentId, chatLogId, email) {
      const r = await first<LeadRow>(sql`SELECT * FROM leads WHERE deployment_id = ${deploymentId} AND chat_log_id = ${chatLogId}
          AND translate(email, ${ASCII_UPPER}, ${ASCII_LOWER}) = translate(${text(email)}, ${ASCII_UPPER}, ${ASCII_LOWER})
        ORDER BY id LIMIT 1`);
      return r ? toLead(r) : null;
    },
    async list(deploymentId, page = {}) {
      const found =
        await rows<LeadMailRow>(sql`SELECT l.*, m.status AS mail_status, m.attempts AS mail_attempts, m.last_error AS mail_last_error,
            m.sent_at AS mail_sent_at, m.sent_via AS mail_sent_via
          FROM leads l LEFT JOIN mail_outbox m ON m.id = (SELECT MAX(id) FROM mail_outbox WHERE lead_id = l.id)
          WHERE l.deployment_id = ${deploymentId} AND l.id < ${page.beforeId ?? Number.MAX_SAFE_INTEGER}::bigint
          ORDER BY l.id DESC LIMIT ${limitOf(page.limit ?? -1)}`);
      return found.map(toLeadWithMail);
    },
  };
}

import type { SQL } from "bun";
import type { Lead, LeadInput, LeadWithMail } from "../../sqlite/repos/leads.sqlite.ts";
import type { MailDraft, OutboxStatus } from "../../sqlite/repos/outbox.sqlite.ts";
import type { LeadsStore } from "../../contract/store.contract.ts";
import { enqueueMail } from "./outbox.pg.ts";
import { first, limitOf, num, numOrNull, type Raw, text } from "./values.ts";

const toLead = (r: Raw): Lead => ({
  id: num(r.id),
  deploymentId: r.deployment_id as string,
  conversationId: (r.conversation_id as string | null) ?? null,
  chatLogId: numOrNull(r.chat_log_id),
  email: r.email as string,
  name: r.name as string,
  message: r.message as string,
  refusedQuestion: r.refused_question as string,
  createdAt: num(r.created_at),
});

/** ASCII-only lower case: SQLite's NOCASE folds A-Z and nothing else. */
const ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz";

/** The PostgreSQL twin of repos/leads.repo.ts. */
export function createPgLeadsRepo(sql: SQL): LeadsStore {
  return {
    /**
     * Stores the lead and its notification mail in ONE transaction: either both exist or neither, so a crash can
     * never leave a lead whose owner is not told, nor a mail about a lead that was not kept.
     */
    createWithMail(input: LeadInput, compose: (lead: Lead) => MailDraft, at = Date.now()): Promise<Lead> {
      return sql.begin(async (tx) => {
        const [row] =
          (await tx`INSERT INTO leads (deployment_id, conversation_id, chat_log_id, email, name, message, refused_question, created_at)
          VALUES (${input.deploymentId}, ${text(input.conversationId)}, ${input.chatLogId}::bigint, ${text(input.email)}, ${text(input.name)}, ${text(input.message)},
            ${text(input.refusedQuestion)}, ${at}::bigint)
          RETURNING *`) as Raw[];
        const lead = toLead(row as Raw);
        await enqueueMail(tx, { ...compose(lead), leadId: lead.id }, at);
        return lead;
      }) as Promise<Lead>;
    },
    /** The lead already recorded for this refusal and email, if any (case-insensitive email, as SQLite's NOCASE). */
    async findForRefusal(deploymentId: string, chatLogId: number, email: string): Promise<Lead | null> {
      const r = await first(sql`SELECT * FROM leads WHERE deployment_id = ${deploymentId} AND chat_log_id = ${chatLogId}
          AND translate(email, ${ASCII_UPPER}, ${ASCII_LOWER}) = translate(${text(email)}, ${ASCII_UPPER}, ${ASCII_LOWER})
        ORDER BY id LIMIT 1`);
      return r ? toLead(r) : null;
    },
    /**
     * Newest first. `limit` pages (default: every lead); `beforeId` continues after the last id of a page, so each
     * page is one indexed range, however many leads there are.
     */
    async list(deploymentId: string, page: { limit?: number; beforeId?: number } = {}): Promise<LeadWithMail[]> {
      const rows = (await sql`SELECT l.*, m.status AS mail_status, m.attempts AS mail_attempts, m.last_error AS mail_last_error,
            m.sent_at AS mail_sent_at, m.sent_via AS mail_sent_via
          FROM leads l LEFT JOIN mail_outbox m ON m.id = (SELECT MAX(id) FROM mail_outbox WHERE lead_id = l.id)
          WHERE l.deployment_id = ${deploymentId} AND l.id < ${page.beforeId ?? Number.MAX_SAFE_INTEGER}::bigint
          ORDER BY l.id DESC LIMIT ${limitOf(page.limit ?? -1)}`) as Raw[];
      return rows.map((r) => ({
        ...toLead(r),
        mail:
          r.mail_status === null || r.mail_status === undefined
            ? null
            : {
                status: r.mail_status as OutboxStatus,
                attempts: num(r.mail_attempts ?? 0),
                lastError: (r.mail_last_error as string | null) ?? null,
                sentAt: numOrNull(r.mail_sent_at),
                sentVia: (r.mail_sent_via as string | null) ?? null,
              },
      }));
    },
  };
}

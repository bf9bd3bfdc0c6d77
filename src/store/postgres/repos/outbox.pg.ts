import type { SQL } from "bun";
import { MAX_MAIL_ERROR, type MailDraft, type OutboxRow, type OutboxStore, toOutboxMail } from "../../contract/outbox.contract.ts";
import { first, limitOf, rows, text } from "./values.ts";

/** Queues one mail; on `sql` or inside a caller's transaction (a lead's). Returns its id. */
export async function enqueueMail(sql: SQL, draft: MailDraft & { leadId: number | null }, at: number): Promise<number> {
  const row = await first<{
    id: string;
  }>(sql`INSERT INTO mail_outbox (lead_id, message_id, to_addr, subject, body, next_attempt_at, created_at)
    VALUES (${draft.leadId}::bigint, ${text(draft.messageId)}, ${text(draft.to)}, ${text(draft.subject)}, ${text(draft.body)}, ${at}::bigint, ${at}::bigint) RETURNING id`);
  return Number(row?.id);
}

/**
 * The mail queue on PostgreSQL, shared by every node. `FOR UPDATE SKIP LOCKED` lets nodes polling at the same moment
 * each take a different row, and the lock's re-check of the WHERE clause keeps a row another node has just leased
 * out of reach until the lease runs out.
 */
export function createPgOutboxRepo(sql: SQL): OutboxStore {
  const maybe = (r: OutboxRow | null) => (r ? toOutboxMail(r) : null);
  return {
    enqueue: (draft, at = Date.now()) => enqueueMail(sql, draft, at),
    claimNext: async (now, leaseUntil) =>
      maybe(
        await first<OutboxRow>(sql`UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, next_attempt_at = ${leaseUntil}::bigint
          WHERE id = (SELECT id FROM mail_outbox WHERE status IN ('pending', 'sending') AND next_attempt_at <= ${now}::bigint
                       ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING *`),
      ),
    async markSent(id, via, at = Date.now()) {
      await sql`UPDATE mail_outbox SET status = 'sent', sent_at = ${at}::bigint, sent_via = ${via}, last_error = NULL WHERE id = ${id}`;
    },
    async markRetry(id, nextAttemptAt, error) {
      await sql`UPDATE mail_outbox SET status = 'pending', next_attempt_at = ${nextAttemptAt}::bigint, last_error = ${text(error.slice(0, MAX_MAIL_ERROR))} WHERE id = ${id}`;
    },
    async markDead(id, error) {
      await sql`UPDATE mail_outbox SET status = 'dead', last_error = ${text(error.slice(0, MAX_MAIL_ERROR))} WHERE id = ${id}`;
    },
    async retryDead(at = Date.now()) {
      const r = await sql`UPDATE mail_outbox SET status = 'pending', attempts = 0, next_attempt_at = ${at}::bigint WHERE status = 'dead'`;
      return r.count;
    },
    findById: async (id) => maybe(await first<OutboxRow>(sql`SELECT * FROM mail_outbox WHERE id = ${id}`)),
    async list(opts = {}) {
      const limit = limitOf(opts.limit ?? 1000);
      const found = opts.status
        ? await rows<OutboxRow>(sql`SELECT * FROM mail_outbox WHERE status = ${opts.status} ORDER BY id LIMIT ${limit}`)
        : await rows<OutboxRow>(sql`SELECT * FROM mail_outbox ORDER BY id LIMIT ${limit}`);
      return found.map(toOutboxMail);
    },
  };
}

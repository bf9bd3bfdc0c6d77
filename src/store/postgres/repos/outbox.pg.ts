import type { SQL } from "bun";
import type { MailDraft, OutboxMail, OutboxRow, OutboxStatus } from "../../sqlite/repos/outbox.sqlite.ts";
import { toOutboxMail } from "../../sqlite/repos/outbox.sqlite.ts";
import type { OutboxStore } from "../../contract/store.contract.ts";
import { first, limitOf, num, numOrNull, type Raw, text } from "./values.ts";

const toMail = (r: Raw): OutboxMail =>
  toOutboxMail({
    ...(r as unknown as OutboxRow),
    id: num(r.id),
    lead_id: numOrNull(r.lead_id),
    attempts: num(r.attempts),
    next_attempt_at: num(r.next_attempt_at),
    created_at: num(r.created_at),
    sent_at: numOrNull(r.sent_at),
    sent_via: (r.sent_via as string | null) ?? null,
  });

/** Queues one mail; on `sql` or inside a caller's transaction (a lead's). Returns its id. */
export async function enqueueMail(sql: SQL, draft: MailDraft & { leadId: number | null }, at: number): Promise<number> {
  const [row] = (await sql`INSERT INTO mail_outbox (lead_id, message_id, to_addr, subject, body, next_attempt_at, created_at)
    VALUES (${draft.leadId}::bigint, ${text(draft.messageId)}, ${text(draft.to)}, ${text(draft.subject)}, ${text(draft.body)}, ${at}::bigint, ${at}::bigint) RETURNING id`) as Raw[];
  return num(row?.id);
}

/**
 * The PostgreSQL twin of repos/outbox.repo.ts, shared by every node. A row is claimed by moving it to 'sending'
 * with `next_attempt_at` as its lease expiry; `FOR UPDATE SKIP LOCKED` lets nodes polling at the same moment each
 * take a different row, and the lock's re-check of the WHERE clause keeps a row another node has just leased out
 * of reach until the lease runs out.
 */
export function createPgOutboxRepo(sql: SQL): OutboxStore {
  return {
    enqueue: (draft: MailDraft & { leadId: number | null }, at = Date.now()): Promise<number> => enqueueMail(sql, draft, at),
    /** Atomically takes the next due row (pending, or sending with an expired lease) and leases it until `leaseUntil`. */
    async claimNext(now: number, leaseUntil: number): Promise<OutboxMail | null> {
      const r = await first(sql`UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, next_attempt_at = ${leaseUntil}::bigint
        WHERE id = (SELECT id FROM mail_outbox WHERE status IN ('pending', 'sending') AND next_attempt_at <= ${now}::bigint
                     ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`);
      return r ? toMail(r) : null;
    },
    async markSent(id: number, via: string, at = Date.now()): Promise<void> {
      await sql`UPDATE mail_outbox SET status = 'sent', sent_at = ${at}::bigint, sent_via = ${via}, last_error = NULL WHERE id = ${id}`;
    },
    async markRetry(id: number, nextAttemptAt: number, error: string): Promise<void> {
      await sql`UPDATE mail_outbox SET status = 'pending', next_attempt_at = ${nextAttemptAt}::bigint, last_error = ${text(error.slice(0, 500))} WHERE id = ${id}`;
    },
    async markDead(id: number, error: string): Promise<void> {
      await sql`UPDATE mail_outbox SET status = 'dead', last_error = ${text(error.slice(0, 500))} WHERE id = ${id}`;
    },
    /** Puts dead-lettered mail back in the queue with a fresh attempt budget; returns how many. */
    async retryDead(at = Date.now()): Promise<number> {
      const r = await sql`UPDATE mail_outbox SET status = 'pending', attempts = 0, next_attempt_at = ${at}::bigint WHERE status = 'dead'`;
      return r.count;
    },
    async findById(id: number): Promise<OutboxMail | null> {
      const r = await first(sql`SELECT * FROM mail_outbox WHERE id = ${id}`);
      return r ? toMail(r) : null;
    },
    async list(opts: { status?: OutboxStatus; limit?: number } = {}): Promise<OutboxMail[]> {
      const limit = limitOf(opts.limit ?? 1000);
      const rows = (
        opts.status
          ? await sql`SELECT * FROM mail_outbox WHERE status = ${opts.status} ORDER BY id LIMIT ${limit}`
          : await sql`SELECT * FROM mail_outbox ORDER BY id LIMIT ${limit}`
      ) as Raw[];
      return rows.map(toMail);
    },
  };
}

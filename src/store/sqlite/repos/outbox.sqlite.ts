import { MAX_MAIL_ERROR, type MailDraft, type OutboxRow, type OutboxStore, toOutboxMail } from "../../contract/outbox.contract.ts";
import type { Db } from "../db.ts";

/** Queues one mail; in a caller's transaction too (a lead's). Returns its id. */
export function enqueueMail(db: Db, draft: MailDraft & { leadId: number | null }, at: number): number {
  const row = db
    .query<{ id: number }, [number | null, string, string, string, string, number, number]>(
      "INSERT INTO mail_outbox (lead_id, message_id, to_addr, subject, body, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
    )
    .get(draft.leadId, draft.messageId, draft.to, draft.subject, draft.body, at, at) as { id: number };
  return row.id;
}

/** The durable mail queue (outbox.contract.ts); one process owns the data dir, so a claim is one UPDATE. */
export function createSqliteOutboxRepo(db: Db): OutboxStore {
  const claim = db.query<OutboxRow, [number, number]>(
    `UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
      WHERE id = (SELECT id FROM mail_outbox WHERE status IN ('pending', 'sending') AND next_attempt_at <= ?2
                   ORDER BY next_attempt_at, id LIMIT 1)
      RETURNING *`,
  );
  return {
    enqueue: async (draft, at = Date.now()) => enqueueMail(db, draft, at),
    async claimNext(now, leaseUntil) {
      const r = claim.get(leaseUntil, now);
      return r ? toOutboxMail(r) : null;
    },
    async markSent(id, via, at = Date.now()) {
      db.run("UPDATE mail_outbox SET status = 'sent', sent_at = ?, sent_via = ?, last_error = NULL WHERE id = ?", [at, via, id]);
    },
    async markRetry(id, nextAttemptAt, error) {
      db.run("UPDATE mail_outbox SET status = 'pending', next_attempt_at = ?, last_error = ? WHERE id = ?", [
        nextAttemptAt,
        error.slice(0, MAX_MAIL_ERROR),
        id,
      ]);
    },
    async markDead(id, error) {
      db.run("UPDATE mail_outbox SET status = 'dead', last_error = ? WHERE id = ?", [error.slice(0, MAX_MAIL_ERROR), id]);
    },
    async retryDead(at = Date.now()) {
      return db.run("UPDATE mail_outbox SET status = 'pending', attempts = 0, next_attempt_at = ? WHERE status = 'dead'", [at]).changes;
    },
    async findById(id) {
      const r = db.query<OutboxRow, [number]>("SELECT * FROM mail_outbox WHERE id = ?").get(id);
      return r ? toOutboxMail(r) : null;
    },
    async list(opts = {}) {
      const limit = opts.limit ?? 1000;
      const rows = opts.status
        ? db.query<OutboxRow, [string, number]>("SELECT * FROM mail_outbox WHERE status = ? ORDER BY id LIMIT ?").all(opts.status, limit)
        : db.query<OutboxRow, [number]>("SELECT * FROM mail_outbox ORDER BY id LIMIT ?").all(limit);
      return rows.map(toOutboxMail);
    },
  };
}

import type { Db } from "../db.ts";

export type OutboxStatus = "pending" | "sending" | "sent" | "dead";

export interface OutboxMail {
  id: number;
  leadId: number | null;
  messageId: string;
  to: string;
  subject: string;
  body: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
  sentVia: string | null;
}

export interface OutboxRow {
  id: number;
  lead_id: number | null;
  message_id: string;
  to_addr: string;
  subject: string;
  body: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
  sent_via: string | null;
}

export const toOutboxMail = (r: OutboxRow): OutboxMail => ({
  id: r.id,
  leadId: r.lead_id,
  messageId: r.message_id,
  to: r.to_addr,
  subject: r.subject,
  body: r.body,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastError: r.last_error,
  createdAt: r.created_at,
  sentAt: r.sent_at,
  sentVia: r.sent_via,
});

export interface MailDraft {
  messageId: string;
  to: string;
  subject: string;
  body: string;
}

/**
 * The durable mail queue. A row is claimed by moving it to 'sending' with `next_attempt_at` as its lease
 * expiry; a process that dies mid-send leaves the row to be reclaimed once the lease runs out, which is
 * the one duplicate a crash can cost.
 */
export function createOutboxRepo(db: Db) {
  const claim = db.query<OutboxRow, [number, number]>(
    `UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
      WHERE id = (SELECT id FROM mail_outbox WHERE status IN ('pending', 'sending') AND next_attempt_at <= ?2
                   ORDER BY next_attempt_at, id LIMIT 1)
      RETURNING *`,
  );
  return {
    enqueue(draft: MailDraft & { leadId: number | null }, at = Date.now()): number {
      const row = db
        .query<{ id: number }, [number | null, string, string, string, string, number, number]>(
          "INSERT INTO mail_outbox (lead_id, message_id, to_addr, subject, body, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .get(draft.leadId, draft.messageId, draft.to, draft.subject, draft.body, at, at) as { id: number };
      return row.id;
    },
    /** Atomically takes the next due row (pending, or sending with an expired lease) and leases it until `leaseUntil`. */
    claimNext(now: number, leaseUntil: number): OutboxMail | null {
      const r = claim.get(leaseUntil, now);
      return r ? toOutboxMail(r) : null;
    },
    markSent(id: number, via: string, at = Date.now()): void {
      db.run("UPDATE mail_outbox SET status = 'sent', sent_at = ?, sent_via = ?, last_error = NULL WHERE id = ?", [at, via, id]);
    },
    markRetry(id: number, nextAttemptAt: number, error: string): void {
      db.run("UPDATE mail_outbox SET status = 'pending', next_attempt_at = ?, last_error = ? WHERE id = ?", [
        nextAttemptAt,
        error.slice(0, 500),
        id,
      ]);
    },
    markDead(id: number, error: string): void {
      db.run("UPDATE mail_outbox SET status = 'dead', last_error = ? WHERE id = ?", [error.slice(0, 500), id]);
    },
    /** Puts dead-lettered mail back in the queue with a fresh attempt budget; returns how many. */
    retryDead(at = Date.now()): number {
      return db.run("UPDATE mail_outbox SET status = 'pending', attempts = 0, next_attempt_at = ? WHERE status = 'dead'", [at]).changes;
    },
    findById(id: number): OutboxMail | null {
      const r = db.query<OutboxRow, [number]>("SELECT * FROM mail_outbox WHERE id = ?").get(id);
      return r ? toOutboxMail(r) : null;
    },
    list(opts: { status?: OutboxStatus; limit?: number } = {}): OutboxMail[] {
      const limit = opts.limit ?? 1000;
      const rows = opts.status
        ? db.query<OutboxRow, [string, number]>("SELECT * FROM mail_outbox WHERE status = ? ORDER BY id LIMIT ?").all(opts.status, limit)
        : db.query<OutboxRow, [number]>("SELECT * FROM mail_outbox ORDER BY id LIMIT ?").all(limit);
      return rows.map(toOutboxMail);
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;

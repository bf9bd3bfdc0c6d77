import { type IntCell, num, numOrNull } from "./row-values.ts";

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

export interface MailDraft {
  messageId: string;
  to: string;
  subject: string;
  body: string;
}

export interface OutboxRow {
  id: IntCell;
  lead_id: IntCell | null;
  message_id: string;
  to_addr: string;
  subject: string;
  body: string;
  status: OutboxStatus;
  attempts: IntCell;
  next_attempt_at: IntCell;
  last_error: string | null;
  created_at: IntCell;
  sent_at: IntCell | null;
  sent_via: string | null;
}

export const toOutboxMail = (r: OutboxRow): OutboxMail => ({
  id: num(r.id),
  leadId: numOrNull(r.lead_id),
  messageId: r.message_id,
  to: r.to_addr,
  subject: r.subject,
  body: r.body,
  status: r.status,
  attempts: num(r.attempts),
  nextAttemptAt: num(r.next_attempt_at),
  lastError: r.last_error ?? null,
  createdAt: num(r.created_at),
  sentAt: numOrNull(r.sent_at),
  sentVia: r.sent_via ?? null,
});

/** The longest error text kept on a mail. */
export const MAX_MAIL_ERROR = 500;

/**
 * The durable mail queue, shared by every node. A row is claimed by moving it to 'sending' with `nextAttemptAt` as
 * its lease expiry; a process that dies mid-send leaves the row to be reclaimed once the lease runs out, which is
 * the one duplicate a crash can cost. Nodes claiming at once each take a different row.
 */
export interface OutboxStore {
  /** Queues one mail; returns its id. */
  enqueue(draft: MailDraft & { leadId: number | null }, at?: number): Promise<number>;
  /** Atomically takes the next due row (pending, or sending with an expired lease) and leases it until `leaseUntil`. */
  claimNext(now: number, leaseUntil: number): Promise<OutboxMail | null>;
  markSent(id: number, via: string, at?: number): Promise<void>;
  markRetry(id: number, nextAttemptAt: number, error: string): Promise<void>;
  markDead(id: number, error: string): Promise<void>;
  /** Puts dead-lettered mail back in the queue with a fresh attempt budget; returns how many. */
  retryDead(at?: number): Promise<number>;
  findById(id: number): Promise<OutboxMail | null>;
  /** By id, optionally of one status, at most `limit` (default 1000). */
  list(opts?: { status?: OutboxStatus; limit?: number }): Promise<OutboxMail[]>;
}

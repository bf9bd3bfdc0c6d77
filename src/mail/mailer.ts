import { randomUUID } from "node:crypto";

/** One outgoing mail. Only `text` may carry visitor-supplied content; every other field becomes a header. */
export interface MailMessage {
  /** `<local@domain>`, stored with the outbox row so a resend is recognisably the same message */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
}

export type MailerKind = "smtp" | "log";

export interface SendResult {
  messageId: string;
  via: MailerKind;
}

/** Swappable delivery drivers; every driver runs the same contract suite (test/mail/mailer.contract.test.ts). */
export interface Mailer {
  readonly kind: MailerKind;
  /** where mail goes, safe to log (never credentials) */
  readonly description: string;
  /** Resolves once the message was handed over; rejects on any failure, including unsafe headers. */
  send(message: MailMessage): Promise<SendResult>;
  close(): Promise<void>;
}

/** A message that can never be sent as it is; retrying would not help. */
export class UnsafeMailError extends Error {
  override name = "UnsafeMailError";
}

const MESSAGE_ID = /^<[A-Za-z0-9._+-]{1,200}@[A-Za-z0-9.-]{1,200}>$/;

/**
 * Defence in depth under the visitor-input validation: nothing that becomes a header may contain a line
 * break or other control character, so no header can be injected even if a caller forgot to validate.
 */
export function assertHeaderSafe(message: MailMessage): void {
  for (const field of ["from", "to", "subject"] as const) {
    const v = message[field];
    if (typeof v !== "string" || v.trim() === "" || /[\u0000-\u001f\u007f\u2028\u2029]/.test(v)) {
      throw new UnsafeMailError(`mail ${field} is empty or contains a control character`);
    }
  }
  if (!MESSAGE_ID.test(message.messageId)) throw new UnsafeMailError("mail Message-ID is malformed");
}

/** A fresh, globally unique Message-ID in the From address's domain. */
export function newMessageId(from: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? "docchat.invalid";
  return `<${randomUUID()}@${domain}>`;
}

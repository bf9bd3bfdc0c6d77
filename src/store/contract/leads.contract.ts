import type { MailDraft, OutboxStatus } from "./outbox.contract.ts";
import { type IntCell, num, numOrNull } from "./row-values.ts";

/** A visitor who left an email after a refusal, for the owner to answer. */
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

export type LeadInput = Omit<Lead, "id" | "createdAt">;

/** A lead as the owner sees it: with the state of its notification mail (null when none was queued). */
export interface LeadWithMail extends Lead {
  mail: { status: OutboxStatus; attempts: number; lastError: string | null; sentAt: number | null; sentVia: string | null } | null;
}

export interface LeadRow {
  id: IntCell;
  deployment_id: string;
  conversation_id: string | null;
  chat_log_id: IntCell | null;
  email: string;
  name: string;
  message: string;
  refused_question: string;
  created_at: IntCell;
}

/** A lead joined with its latest mail (`mail_*`: null when none). */
export interface LeadMailRow extends LeadRow {
  mail_status: OutboxStatus | null;
  mail_attempts: IntCell | null;
  mail_last_error: string | null;
  mail_sent_at: IntCell | null;
  mail_sent_via: string | null;
}

export const toLead = (r: LeadRow): Lead => ({
  id: num(r.id),
  deploymentId: r.deployment_id,
  conversationId: r.conversation_id ?? null,
  chatLogId: numOrNull(r.chat_log_id),
  email: r.email,
  name: r.name,
  message: r.message,
  refusedQuestion: r.refused_question,
  createdAt: num(r.created_at),
});

export const toLeadWithMail = (r: LeadMailRow): LeadWithMail => ({
  ...toLead(r),
  mail:
    r.mail_status === null || r.mail_status === undefined
      ? null
      : {
          status: r.mail_status,
          attempts: num(r.mail_attempts ?? 0),
          lastError: r.mail_last_error ?? null,
          sentAt: numOrNull(r.mail_sent_at),
          sentVia: r.mail_sent_via ?? null,
        },
});

export interface LeadsStore {
  /**
   * Stores the lead and its notification mail in ONE transaction: either both exist or neither, so a crash can
   * never leave a lead whose owner is not told, nor a mail about a lead that was not kept.
   */
  createWithMail(input: LeadInput, compose: (lead: Lead) => MailDraft, at?: number): Promise<Lead>;
  /** The lead already recorded for this refusal and email, if any (email compared with A-Z folded only). */
  findForRefusal(deploymentId: string, chatLogId: number, email: string): Promise<Lead | null>;
  /**
   * Newest first. `limit` pages (default: every lead); `beforeId` continues after the last id of a page, so each
   * page is one indexed range, however many leads there are.
   */
  list(deploymentId: string, page?: { limit?: number; beforeId?: number }): Promise<LeadWithMail[]>;
}

import { toSeconds } from "../shared/wire-time.ts";
import type { Correction, Lead, LeadWithMail } from "../store/contract/index.ts";
import type { CorrectionItem } from "./corrections.service.ts";

/** Wire/CLI shapes (snake_case) shared by the CLI and the owner console. */
export function correctionView(c: Correction) {
  return {
    id: c.id,
    chat_log_id: c.chatLogId,
    deployment_id: c.deploymentId,
    question: c.question,
    answer: c.answer,
    active: c.active,
    served_count: c.servedCount,
    created_at: toSeconds(c.createdAt),
    updated_at: toSeconds(c.updatedAt),
  };
}

export function correctionItemView(item: CorrectionItem) {
  const { turn } = item;
  return {
    chat_log_id: turn.id,
    conversation_id: turn.conversationId,
    question: turn.question,
    answer: turn.answer,
    sources: turn.sources,
    refused: turn.refused,
    rated_at: toSeconds(turn.ratedAt),
    created_at: toSeconds(turn.createdAt),
    correction: item.correction ? correctionView(item.correction) : null,
  };
}

/** A lead on the wire, but for its time (seconds for the console and CLI, ISO in a webhook) and its mail. */
export function leadFields(l: Lead) {
  return {
    id: l.id,
    email: l.email,
    name: l.name,
    message: l.message,
    refused_question: l.refusedQuestion,
    conversation_id: l.conversationId,
    chat_log_id: l.chatLogId,
  };
}

export function leadView(l: LeadWithMail) {
  return {
    ...leadFields(l),
    created_at: toSeconds(l.createdAt),
    mail_status: l.mail?.status ?? null,
    mail_attempts: l.mail?.attempts ?? 0,
    mail_last_error: l.mail?.lastError ?? null,
    mail_sent_at: toSeconds(l.mail?.sentAt ?? null),
    mail_sent_via: l.mail?.sentVia ?? null,
  };
}

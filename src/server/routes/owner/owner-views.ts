import type { Services } from "../../../app.ts";
import { toSeconds } from "../../../shared/wire-time.ts";
import type { Deployment, LeadWithMail, OwnerChatLog } from "../../../store/contract/index.ts";
import { leadView } from "../../../visitor/views.ts";

/** What the console shows of a deployment: settings and status, never the key (only its display prefix). */
export async function ownerDeploymentView(s: Services, d: Deployment) {
  const key = await s.deployments.keyInfo(d.id);
  return {
    id: d.id,
    name: d.name,
    kind: d.kind,
    published: d.published,
    description: d.description,
    persona: d.persona,
    temperature: d.temperature,
    starter_questions: d.starterQuestions,
    qa_pairs: d.qaPairs.map((p) => ({ question: p.question, answer: p.answer })),
    handoff_enabled: d.handoffEnabled,
    ip_allow: d.ipAllow,
    key_manages_documents: d.keyManagesDocuments,
    push_enabled: d.pushEnabled,
    push_ip_allow: d.pushIpAllow,
    push_max_documents: d.pushMaxDocuments ?? s.config.pushMaxDocuments,
    push_max_bytes: d.pushMaxBytes ?? s.config.pushMaxBytes,
    push_share_custom: d.pushMaxDocuments !== null || d.pushMaxBytes !== null,
    refusal_threshold: d.refusalThreshold,
    languages: d.languages,
    detected_languages: await s.documents.languages(d.id),
    refusal_text: d.refusalText,
    retrieval: (() => {
      const m = s.retrievalMode();
      return {
        mode: m.mode,
        judged_by: m.judged_by,
        default_threshold: m.default_threshold,
        effective_threshold: d.refusalThreshold ?? m.default_threshold,
      };
    })(),
    // what the settings page says about persona, temperature and handoff on this install
    answers_by_model: s.llm.name !== "extractive",
    mail_enabled: s.mail.enabled,
    training_status: d.trainingStatus,
    documents: await s.documents.statusCounts(d.id),
    trained_at: toSeconds(d.trainedAt),
    key_prefix: key ? key.displayPrefix : null,
    key_disabled: key ? key.disabled : null,
    created_at: toSeconds(d.createdAt),
    updated_at: toSeconds(d.updatedAt),
  };
}

/**
 * The owner-facing delivery state of a lead's notification: sent, queued (first try pending), retrying
 * (failed at least once, will try again), dead-lettered (gave up), logged (mail is off: kept in the log only).
 */
export function deliveryState(l: LeadWithMail): "sent" | "logged" | "queued" | "retrying" | "dead-lettered" | "none" {
  const m = l.mail;
  if (!m) return "none";
  if (m.status === "sent") return m.sentVia === "log" ? "logged" : "sent";
  if (m.status === "dead") return "dead-lettered";
  return m.attempts > 0 && m.lastError ? "retrying" : "queued";
}

export const ownerLeadView = (l: LeadWithMail) => ({ ...leadView(l), delivery: deliveryState(l) });

export const ownerChatLogView = (c: OwnerChatLog) => ({
  id: c.id,
  conversation_id: c.conversationId,
  question: c.question,
  answer: c.answer,
  sources: c.sources,
  refused: c.refused,
  rating: c.rating,
  correction_id: c.correctionId,
  tokens: c.tokens,
  visitor_email: c.visitorEmail,
  created_at: toSeconds(c.createdAt),
});

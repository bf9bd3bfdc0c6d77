import { appError } from "../errors/index.ts";
import { toCsv } from "../shared/csv.ts";
import type { ChatLogFeedbackStore, Deployment, Lead, LeadsStore, LeadWithMail, RatedTurn } from "../store/contract/index.ts";
import { composeLeadMail } from "./lead-mail.ts";
import { multiLine, singleLine, VISITOR_LIMITS, visitorEmail } from "./validate.ts";

export interface HandoffRequest {
  deployment: Deployment;
  /** the owner account's email: where the notification goes */
  ownerEmail: string;
  email: string;
  name?: string;
  message?: string;
  conversationId?: string;
  chatLogId?: number;
}

/**
 * Handoff: a visitor whose question was refused asks for a person to email them. The lead and the owner's
 * notification are written in one transaction; the outbox worker delivers the mail afterwards.
 */
export function createLeadsService(deps: {
  leads: LeadsStore;
  chatLogs: ChatLogFeedbackStore;
  mailFrom: string;
  onQueued?: () => void;
  /** a new lead was recorded (not a repeat): its webhook event is queued here, before the mail worker is woken */
  onCreated?: (lead: Lead) => Promise<void>;
}) {
  const { leads, chatLogs } = deps;

  /** The refusal this handoff answers: in the given conversation and/or at or before the given chat log, of THIS deployment. */
  const refusalFor = async (deploymentId: string, conversationId?: string, chatLogId?: number): Promise<RatedTurn | null> => {
    if (chatLogId !== undefined) {
      const turn = await chatLogs.findScoped(deploymentId, chatLogId);
      if (!turn || (conversationId !== undefined && turn.conversationId !== conversationId)) return null;
      return turn.refused ? turn : chatLogs.latestRefusal(deploymentId, turn.conversationId, turn.id);
    }
    return conversationId === undefined ? null : chatLogs.latestRefusal(deploymentId, conversationId);
  };

  return {
    /**
     * Validates, checks the deployment allows handoff and that a refusal happened in this conversation, then
     * records the lead with its mail. A repeat for the same refusal and email returns the first lead
     * (`created: false`) without mailing the owner again.
     */
    async handoff(req: HandoffRequest): Promise<{ lead: Lead; created: boolean }> {
      const email = visitorEmail(req.email);
      const name = singleLine(req.name ?? "", "name", VISITOR_LIMITS.name);
      const message = multiLine(req.message ?? "", "message", VISITOR_LIMITS.message);
      const conversationId =
        req.conversationId === undefined ? undefined : singleLine(req.conversationId, "conversation_id", VISITOR_LIMITS.conversationId);
      if (!conversationId && req.chatLogId === undefined) {
        throw appError("bad_request", { param: "conversation_id", message: "conversation_id or chat_log_id is required." });
      }
      if (!req.deployment.handoffEnabled) throw appError("handoff_disabled");
      const refusal = await refusalFor(req.deployment.id, conversationId || undefined, req.chatLogId);
      if (!refusal) throw appError("handoff_not_offered");

      const existing = await leads.findForRefusal(req.deployment.id, refusal.id, email);
      if (existing) return { lead: existing, created: false };
      const lead = await leads.createWithMail(
        {
          deploymentId: req.deployment.id,
          conversationId: refusal.conversationId,
          chatLogId: refusal.id,
          email,
          name,
          message,
          refusedQuestion: refusal.question,
        },
        (l) => composeLeadMail({ lead: l, deployment: req.deployment, ownerEmail: req.ownerEmail, from: deps.mailFrom }),
      );
      await deps.onCreated?.(lead);
      deps.onQueued?.();
      return { lead, created: true };
    },

    /** Newest first; without a page, all of them. */
    async list(deploymentId: string, page: { limit?: number; beforeId?: number } = {}): Promise<LeadWithMail[]> {
      return leads.list(deploymentId, page);
    },

    /** Spreadsheet export, safe against formula injection (see csv.ts). */
    async csv(deploymentId: string): Promise<string> {
      const rows = (await leads.list(deploymentId)).map((l) => [
        l.id,
        new Date(l.createdAt).toISOString(),
        l.email,
        l.name,
        l.message,
        l.refusedQuestion,
        l.conversationId,
        l.mail?.status ?? "",
      ]);
      return toCsv(["id", "created_at", "email", "name", "message", "refused_question", "conversation_id", "mail_status"], rows);
    },
  };
}

export type LeadsService = ReturnType<typeof createLeadsService>;

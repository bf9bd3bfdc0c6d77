import type { ChatService } from "../chat/chat.service.ts";
import type {
  ChatLogFeedbackStore,
  ChatLogsStore,
  DeploymentsStore,
  DocumentsStore,
  Lead,
  TrainingStore,
} from "../store/contract/index.ts";
import type { FeedbackService } from "../visitor/feedback.service.ts";
import { leadFields } from "../visitor/views.ts";
import type { WebhooksService } from "./webhooks.service.ts";

/**
 * Where events come from, each wrapped around the service or store that records the fact, at the composition
 * root. An event is queued right after its fact is committed and before the caller is answered, under an id
 * derived from the fact (the same id if it is ever emitted again), so a visitor's or owner's acknowledged action
 * always has its event in the durable outbox.
 */

/** answer.refused: a question the documents could not answer (after the refusal is recorded). */
export function emitOnChat(chat: ChatService, webhooks: WebhooksService): ChatService {
  return {
    ...chat,
    async *answer(req, signal) {
      let refused: { conversationId: string; searchQuery: string } | null = null;
      for await (const ev of chat.answer(req, signal)) {
        if (ev.type === "sources" && ev.refused) refused = { conversationId: ev.conversationId, searchQuery: ev.searchQuery };
        if (ev.type === "done" && refused)
          await webhooks.emit({
            deploymentId: req.deployment.id,
            type: "answer.refused",
            eventId: `msg_refused_${ev.chatLogId}`,
            data: {
              chat_log_id: ev.chatLogId,
              conversation_id: refused.conversationId,
              question: req.question,
              search_query: refused.searchQuery,
              endpoint: req.endpoint,
            },
          });
        yield ev;
      }
    },
  };
}

/** balance.low: an answer's debit took the account's balance below the threshold (once per crossing). */
export function emitOnDebits(
  chatLogs: ChatLogsStore,
  o: { webhooks: WebhooksService; deployments: DeploymentsStore; threshold: number },
): ChatLogsStore {
  return {
    ...chatLogs,
    async record(turn) {
      const r = await chatLogs.record(turn);
      if (r.balance !== null && r.balance < o.threshold && r.balance + r.debited >= o.threshold) {
        // the balance is the account's: every deployment of it may have subscribed
        for (const d of await o.deployments.list(turn.accountId))
          await o.webhooks.emit({
            deploymentId: d.id,
            type: "balance.low",
            eventId: `msg_balance_${turn.accountId}_${r.chatLogId}`,
            data: { balance: r.balance, threshold: o.threshold, chat_log_id: r.chatLogId, answered_by: turn.deploymentId },
          });
      }
      return r;
    },
  };
}

/**
 * lead.created: a visitor asked for a person (a repeat of the same handoff is not a new lead). The leads service
 * calls this for each new lead, before it wakes the mail worker and answers the visitor.
 */
export function leadCreatedEmitter(webhooks: WebhooksService) {
  return (l: Lead) =>
    webhooks.emit({
      deploymentId: l.deploymentId,
      type: "lead.created",
      eventId: `msg_lead_${l.id}`,
      data: {
        lead: { ...leadFields(l), created_at: new Date(l.createdAt).toISOString() },
      },
    });
}

/** feedback.negative: a visitor rated an answer not helpful (each rating of 0 is its own event). */
export function emitOnFeedback(
  feedback: FeedbackService,
  o: { webhooks: WebhooksService; chatLogs: ChatLogFeedbackStore },
): FeedbackService {
  return {
    ...feedback,
    async rate(deploymentId, chatLogId, rating) {
      await feedback.rate(deploymentId, chatLogId, rating);
      if (rating !== 0) return;
      const t = await o.chatLogs.findScoped(deploymentId, chatLogId);
      if (t?.rating !== 0) return;
      await o.webhooks.emit({
        deploymentId,
        type: "feedback.negative",
        eventId: `msg_feedback_${chatLogId}_${t.ratedAt}`,
        data: {
          chat_log_id: t.id,
          conversation_id: t.conversationId,
          question: t.question,
          answer: t.answer,
          sources: t.sources,
          rated_at: t.ratedAt === null ? null : new Date(t.ratedAt).toISOString(),
        },
      });
    },
  };
}

/** document.trained and document.failed, as the training store commits them (each training attempt its own event). */
export function emitOnTraining(training: TrainingStore, o: { webhooks: WebhooksService; documents: DocumentsStore }): TrainingStore {
  const doc = (d: { id: string; name: string; kind: string; pages: number | null }, chunkCount: number) => ({
    id: d.id,
    name: d.name,
    kind: d.kind,
    pages: d.pages,
    chunk_count: chunkCount,
  });
  const trained = (d: Parameters<TrainingStore["fail"]>[1], chunkCount: number) =>
    o.webhooks.emit({
      deploymentId: d.deploymentId,
      type: "document.trained",
      eventId: `msg_trained_${d.id}_${d.attempts}`,
      data: { document: doc(d, chunkCount) },
    });
  return {
    ...training,
    async completeBatch(worker, items, embedderId) {
      const done = await training.completeBatch(worker, items, embedderId);
      for (const it of items) if (done.includes(it.doc.id)) await trained(it.doc, it.chunks.length);
      return done;
    },
    async insertTrained(worker, items, embedderId) {
      const docs = await training.insertTrained(worker, items, embedderId);
      for (const d of docs) await trained(d, d.chunkCount);
      return docs;
    },
    async finishLarge(worker, d, vectors, chunkCount) {
      const ok = await training.finishLarge(worker, d, vectors, chunkCount);
      if (ok) await trained(d, chunkCount);
      return ok;
    },
    async fail(worker, d, code, message) {
      await training.fail(worker, d, code, message);
      // only when the failure was ours to record (the document may have been removed or reclaimed meanwhile)
      if ((await o.documents.get(d.id))?.status !== "failed") return;
      await o.webhooks.emit({
        deploymentId: d.deploymentId,
        type: "document.failed",
        eventId: `msg_failed_${d.id}_${d.attempts}`,
        data: { document: doc(d, 0), error: { code, message } },
      });
    },
  };
}

import { createHash } from "node:crypto";
import { appError } from "../errors/index.ts";
import type { Logger } from "../log.ts";
import type { DeploymentsStore, ErasureRecord, ErasureSubject, PolicyPatch, VisitorDataStore } from "../store/contract/index.ts";
import { visitorEmail } from "../visitor/validate.ts";

const DAY_MS = 86_400_000;
/** No transcripts: a conversation keeps its text while it may still get a follow-up, this long after its last turn. */
export const TRANSCRIPT_IDLE_MS = 30 * 60_000;

/** The identifier erased, kept only as proof: SHA-256 of the conversation id, or of the email lower-cased. */
export const subjectHash = (s: ErasureSubject) =>
  createHash("sha256")
    .update(s.kind === "email" ? `email:${s.email.trim().toLowerCase()}` : `conversation:${s.conversationId}`)
    .digest("hex");

/** Reads `{email}` or `{conversation_id}` (exactly one), as the owner API, the console and the CLI give it. */
export function erasureSubject(input: { email?: string | null; conversationId?: string | null }): ErasureSubject {
  const email = input.email?.trim();
  const conv = input.conversationId?.trim();
  if (!!email === !!conv)
    throw appError("bad_request", { param: "email", message: "Give either the visitor's email or a conversation id (one of the two)." });
  if (email) return { kind: "email", email: visitorEmail(email, "email") };
  if (!conv || conv.length > 200)
    throw appError("bad_request", { param: "conversation_id", message: "The conversation id is 1–200 characters." });
  return { kind: "conversation", conversationId: conv };
}

/**
 * Retention and erasure: each deployment's policy (how long chat logs are kept, no transcripts, what the widget may
 * open), the background purge, and erasing one visitor's data everywhere in an account with a record of it.
 */
export function createPrivacyService(deps: { data: VisitorDataStore; deployments: DeploymentsStore; log: Logger }) {
  return {
    policy: (deploymentId: string) => deps.data.policy(deploymentId),
    async setPolicy(deploymentId: string, patch: PolicyPatch) {
      const days = patch.retentionDays;
      if (days !== undefined && days !== null && (!Number.isInteger(days) || days < 1 || days > 3650))
        throw appError("bad_request", {
          param: "retention_days",
          message: "retention_days is a whole number of days from 1 to 3650, or null to keep logs.",
        });
      return deps.data.setPolicy(deploymentId, patch);
    },
    /**
     * Erases a visitor's chat logs, leads and their mails (and the conversations) in the given deployments of one
     * account, in one transaction, and records that it was done (the identifier only as a hash).
     */
    async erase(input: { accountId: number; deploymentIds?: string[]; subject: ErasureSubject; via: string }): Promise<ErasureRecord> {
      const owned = (await deps.deployments.list(input.accountId)).map((d) => d.id);
      const ids = input.deploymentIds ?? owned;
      if (ids.some((id) => !owned.includes(id))) throw appError("not_found", { param: "deployment_id", message: "No such deployment." });
      const record = await deps.data.erase({
        accountId: input.accountId,
        deploymentIds: ids,
        subject: input.subject,
        subjectHash: subjectHash(input.subject),
        via: input.via,
      });
      deps.log.info("visitor data erased", {
        erasure: record.id,
        account: input.accountId,
        chat_logs: record.chatLogs,
        leads: record.leads,
      });
      return record;
    },
    erasures: (accountId: number) => deps.data.erasures(accountId, 100),
    /** The background job: purges logs past each retention period and empties idle transcripts where none are kept. */
    async tick(now = Date.now()): Promise<{ removed: number; scrubbed: number }> {
      let removed = 0;
      let scrubbed = 0;
      for (const p of await deps.data.activePolicies()) {
        if (p.retentionDays !== null) {
          const r = await deps.data.purge(p.deploymentId, now - p.retentionDays * DAY_MS);
          removed += r.removed;
          scrubbed += r.scrubbed;
        }
        if (!p.transcripts) scrubbed += await deps.data.scrubIdle(p.deploymentId, now - TRANSCRIPT_IDLE_MS);
      }
      if (removed || scrubbed) deps.log.info("retention job", { removed, scrubbed });
      return { removed, scrubbed };
    },
  };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;

import type { ErasureCounts, ErasureInput, PolicyPatch, PolicyRow, VisitorDataStore } from "../../contract/owner-insight.contract.ts";
import { defaultPolicy, mergePolicy, toErasure, toPolicy } from "../../contract/owner-insight.contract.ts";
import { HAS_TRANSCRIPT, rollupSql, SCRUB_ANCHOR, SCRUB_TRANSCRIPT } from "../../shared/owner-insight-sql.ts";
import type { Db } from "../db.ts";

/**
 * A deployment's privacy policy, the retention purge, "no transcripts" scrubbing and erasure of one visitor's data
 * with its record. Each write is one transaction.
 */
export function createSqliteVisitorDataRepo(db: Db): VisitorDataStore {
  const inList = "(SELECT value FROM json_each(?))";
  const policyOf = (deploymentId: string) => {
    const r = db.query<PolicyRow, [string]>("SELECT * FROM deployment_policies WHERE deployment_id = ?").get(deploymentId);
    return r ? toPolicy(r) : defaultPolicy(deploymentId);
  };
  return {
    async policy(deploymentId: string) {
      return policyOf(deploymentId);
    },
    async setPolicy(deploymentId: string, patch: PolicyPatch) {
      const at = Date.now();
      return db
        .transaction(() => {
          const p = mergePolicy(policyOf(deploymentId), patch, at);
          db.run(
            `INSERT INTO deployment_policies (deployment_id, retention_days, transcripts, widget_citations, updated_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (deployment_id) DO UPDATE SET retention_days = excluded.retention_days, transcripts = excluded.transcripts,
               widget_citations = excluded.widget_citations, updated_at = excluded.updated_at`,
            [deploymentId, p.retentionDays, p.transcripts ? 1 : 0, p.widgetCitations, at],
          );
          return p;
        })
        .immediate();
    },
    /** The secret that signs this deployment's citation links: made on first use, then the same for every node. */
    async linkSecret(deploymentId: string, fresh: string) {
      db.run(
        `INSERT INTO deployment_policies (deployment_id, updated_at, link_secret) VALUES (?, ?, ?)
         ON CONFLICT (deployment_id) DO UPDATE SET link_secret = excluded.link_secret WHERE deployment_policies.link_secret IS NULL`,
        [deploymentId, Date.now(), fresh],
      );
      return (
        db.query<{ s: string }, [string]>("SELECT link_secret AS s FROM deployment_policies WHERE deployment_id = ?").get(deploymentId)
          ?.s ?? fresh
      );
    },
    /** Policies the background job acts on: a retention period, or no transcripts. */
    async activePolicies() {
      return db
        .query<PolicyRow, []>(
          "SELECT * FROM deployment_policies WHERE retention_days IS NOT NULL OR transcripts = 0 ORDER BY deployment_id",
        )
        .all()
        .map(toPolicy);
    },
    /** Chat logs created before `beforeMs` are counted into report_rollups and removed (anchors of corrections emptied). */
    async purge(deploymentId: string, beforeMs: number) {
      return db
        .transaction(() => {
          const where = "c.deployment_id = ?1 AND c.created_at < ?2";
          db.run(rollupSql(where), [deploymentId, beforeMs]);
          const scrubbed = db.run(
            `UPDATE chat_logs SET ${SCRUB_ANCHOR} WHERE deployment_id = ?1 AND created_at < ?2 AND rolled_up = 0
               AND id IN (SELECT chat_log_id FROM corrections WHERE deployment_id = ?1)`,
            [deploymentId, beforeMs],
          ).changes;
          const removed = db.run("DELETE FROM chat_logs WHERE deployment_id = ? AND created_at < ? AND rolled_up = 0", [
            deploymentId,
            beforeMs,
          ]).changes;
          const conversations = db.run(
            `DELETE FROM conversations WHERE deployment_id = ?1 AND updated_at < ?2
               AND NOT EXISTS (SELECT 1 FROM chat_logs c WHERE c.deployment_id = ?1 AND c.conversation_id = conversations.id)`,
            [deploymentId, beforeMs],
          ).changes;
          return { removed, scrubbed, conversations };
        })
        .immediate();
    },
    /** No transcripts: empties the turns of conversations idle since before `idleBeforeMs`; returns how many. */
    async scrubIdle(deploymentId: string, idleBeforeMs: number) {
      return db.run(
        `UPDATE chat_logs SET ${SCRUB_TRANSCRIPT} WHERE deployment_id = ?1 AND ${HAS_TRANSCRIPT}
           AND conversation_id IN (SELECT id FROM conversations WHERE deployment_id = ?1 AND updated_at < ?2)`,
        [deploymentId, idleBeforeMs],
      ).changes;
    },
    async erase(input: ErasureInput) {
      const at = input.at ?? Date.now();
      const deps = JSON.stringify(input.deploymentIds);
      return db
        .transaction(() => {
          const s = input.subject;
          const ids = (q: string, ...args: (string | number)[]) =>
            db
              .query<{ v: string | number }, (string | number)[]>(q)
              .all(...args)
              .map((r) => r.v);
          const convs =
            s.kind === "conversation"
              ? [s.conversationId]
              : (ids(
                  `SELECT DISTINCT conversation_id AS v FROM chat_logs WHERE deployment_id IN ${inList} AND visitor_email = ? COLLATE NOCASE
                   UNION SELECT conversation_id AS v FROM leads WHERE deployment_id IN ${inList} AND email = ? COLLATE NOCASE
                     AND conversation_id IS NOT NULL`,
                  deps,
                  s.email,
                  deps,
                  s.email,
                ) as string[]);
          const email = s.kind === "email" ? s.email : "";
          const convJson = JSON.stringify(convs.filter((c) => c !== ""));
          const logs = ids(
            `SELECT id AS v FROM chat_logs WHERE deployment_id IN ${inList}
               AND (conversation_id IN ${inList} OR (? <> '' AND visitor_email = ? COLLATE NOCASE))`,
            deps,
            convJson,
            email,
            email,
          );
          const logJson = JSON.stringify(logs);
          const leads = ids(
            `SELECT id AS v FROM leads WHERE deployment_id IN ${inList}
               AND (conversation_id IN ${inList} OR chat_log_id IN ${inList} OR (? <> '' AND email = ? COLLATE NOCASE))`,
            deps,
            convJson,
            logJson,
            email,
            email,
          );
          const leadJson = JSON.stringify(leads);
          const mails = db.run(`DELETE FROM mail_outbox WHERE lead_id IN ${inList}`, [leadJson]).changes;
          db.run(`DELETE FROM leads WHERE id IN ${inList}`, [leadJson]);
          db.run(rollupSql(`c.id IN ${inList}`), [logJson]);
          const anchors = db.run(
            `UPDATE chat_logs SET ${SCRUB_ANCHOR} WHERE id IN ${inList} AND id IN (SELECT chat_log_id FROM corrections)`,
            [logJson],
          ).changes;
          const removed = db.run(`DELETE FROM chat_logs WHERE id IN ${inList} AND id NOT IN (SELECT chat_log_id FROM corrections)`, [
            logJson,
          ]).changes;
          const conversations = db.run(`DELETE FROM conversations WHERE deployment_id IN ${inList} AND id IN ${inList}`, [
            deps,
            convJson,
          ]).changes;
          const counts: ErasureCounts = {
            chatLogs: removed + anchors,
            leads: leads.length,
            mails,
            conversations,
            correctionsKept: anchors,
          };
          const row = db
            .query<Record<string, unknown>, (string | number)[]>(
              `INSERT INTO erasures (account_id, subject_kind, subject_hash, deployments, chat_logs, leads, mails, conversations,
                 corrections_kept, via, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
            )
            .get(
              input.accountId,
              s.kind,
              input.subjectHash,
              deps,
              counts.chatLogs,
              counts.leads,
              counts.mails,
              counts.conversations,
              counts.correctionsKept,
              input.via,
              at,
            );
          return toErasure(row as Record<string, unknown>);
        })
        .immediate();
    },
    /** The account's erasures, newest first. */
    async erasures(accountId: number, limit: number) {
      return db
        .query<Record<string, unknown>, [number, number]>("SELECT * FROM erasures WHERE account_id = ? ORDER BY id DESC LIMIT ?")
        .all(accountId, limit)
        .map(toErasure);
    },
  };
}

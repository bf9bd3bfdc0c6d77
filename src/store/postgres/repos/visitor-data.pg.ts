import type { SQL } from "bun";
import type { DeploymentPolicy, PolicyRow, VisitorDataStore } from "../../contract/owner-insight.contract.ts";
import { defaultPolicy, mergePolicy, toErasure, toPolicy } from "../../contract/owner-insight.contract.ts";
import { HAS_TRANSCRIPT, rollupSql, SCRUB_ANCHOR, SCRUB_TRANSCRIPT } from "../../shared/owner-insight-sql.ts";
import { type Raw, text } from "./values.ts";

const count = (r: unknown) => Number((r as { count?: number }).count ?? 0);

/** The PostgreSQL twin of sqlite/repos/visitor-data.sqlite.ts: the same statements, each write in one transaction. */
export function createPgVisitorDataRepo(sql: SQL): VisitorDataStore {
  async function policy(deploymentId: string, q: SQL = sql): Promise<DeploymentPolicy> {
    const rows = (await q`SELECT * FROM deployment_policies WHERE deployment_id = ${deploymentId}`) as PolicyRow[];
    return rows[0] ? toPolicy(rows[0]) : defaultPolicy(deploymentId);
  }
  return {
    policy: (deploymentId) => policy(deploymentId),
    async setPolicy(deploymentId, patch) {
      const at = Date.now();
      return sql.begin(async (tx) => {
        await tx`SELECT 1 FROM deployments WHERE id = ${deploymentId} FOR UPDATE`;
        const p = mergePolicy(await policy(deploymentId, tx), patch, at);
        await tx`INSERT INTO deployment_policies (deployment_id, retention_days, transcripts, widget_citations, updated_at)
          VALUES (${deploymentId}, ${p.retentionDays}, ${p.transcripts ? 1 : 0}, ${p.widgetCitations}, ${at}::bigint)
          ON CONFLICT (deployment_id) DO UPDATE SET retention_days = excluded.retention_days, transcripts = excluded.transcripts,
            widget_citations = excluded.widget_citations, updated_at = excluded.updated_at`;
        return p;
      });
    },
    async linkSecret(deploymentId, fresh) {
      await sql`INSERT INTO deployment_policies (deployment_id, updated_at, link_secret) VALUES (${deploymentId}, ${Date.now()}::bigint, ${fresh})
        ON CONFLICT (deployment_id) DO UPDATE SET link_secret = excluded.link_secret WHERE deployment_policies.link_secret IS NULL`;
      const rows = (await sql`SELECT link_secret AS s FROM deployment_policies WHERE deployment_id = ${deploymentId}`) as { s: string }[];
      return rows[0]?.s ?? fresh;
    },
    async activePolicies() {
      const rows =
        (await sql`SELECT * FROM deployment_policies WHERE retention_days IS NOT NULL OR transcripts = 0 ORDER BY deployment_id`) as PolicyRow[];
      return rows.map(toPolicy);
    },
    async purge(deploymentId, beforeMs) {
      return sql.begin(async (tx) => {
        const args = [deploymentId, beforeMs];
        await tx.unsafe(rollupSql("c.deployment_id = $1 AND c.created_at < $2::bigint"), args);
        const scrubbed = count(
          await tx.unsafe(
            `UPDATE chat_logs SET ${SCRUB_ANCHOR} WHERE deployment_id = $1 AND created_at < $2::bigint AND rolled_up = 0
               AND id IN (SELECT chat_log_id FROM corrections WHERE deployment_id = $1)`,
            args,
          ),
        );
        const removed = count(
          await tx.unsafe("DELETE FROM chat_logs WHERE deployment_id = $1 AND created_at < $2::bigint AND rolled_up = 0", args),
        );
        const conversations = count(
          await tx.unsafe(
            `DELETE FROM conversations WHERE deployment_id = $1 AND updated_at < $2::bigint
               AND NOT EXISTS (SELECT 1 FROM chat_logs c WHERE c.deployment_id = $1 AND c.conversation_id = conversations.id)`,
            args,
          ),
        );
        return { removed, scrubbed, conversations };
      });
    },
    async scrubIdle(deploymentId, idleBeforeMs) {
      return count(
        await sql.unsafe(
          `UPDATE chat_logs SET ${SCRUB_TRANSCRIPT} WHERE deployment_id = $1 AND ${HAS_TRANSCRIPT}
             AND conversation_id IN (SELECT id FROM conversations WHERE deployment_id = $1 AND updated_at < $2::bigint)`,
          [deploymentId, idleBeforeMs],
        ),
      );
    },
    async erase(input) {
      const at = input.at ?? Date.now();
      const s = input.subject;
      const deps = sql.array(input.deploymentIds, "TEXT");
      return sql.begin(async (tx) => {
        // the deployments' rows are locked first, so two erasures (or an erasure and a purge) never interleave
        await tx`SELECT 1 FROM deployments WHERE id = ANY(${deps}::text[]) ORDER BY id FOR UPDATE`;
        const email = s.kind === "email" ? text(s.email) : "";
        const convs =
          s.kind === "conversation"
            ? [text(s.conversationId)]
            : (
                (await tx`SELECT DISTINCT conversation_id AS v FROM chat_logs WHERE deployment_id = ANY(${deps}::text[]) AND lower(visitor_email) = lower(${email})
                  UNION SELECT conversation_id AS v FROM leads WHERE deployment_id = ANY(${deps}::text[]) AND lower(email) = lower(${email})
                    AND conversation_id IS NOT NULL`) as Raw[]
              ).map((r) => r.v as string);
        const convArr = sql.array(
          convs.filter((c) => c !== ""),
          "TEXT",
        );
        const logs = (
          (await tx`SELECT id AS v FROM chat_logs WHERE deployment_id = ANY(${deps}::text[])
            AND (conversation_id = ANY(${convArr}::text[]) OR (${email} <> '' AND lower(visitor_email) = lower(${email})))`) as Raw[]
        ).map((r) => Number(r.v));
        const logArr = sql.array(logs, "INT8");
        const leads = (
          (await tx`SELECT id AS v FROM leads WHERE deployment_id = ANY(${deps}::text[])
            AND (conversation_id = ANY(${convArr}::text[]) OR chat_log_id = ANY(${logArr}::bigint[])
              OR (${email} <> '' AND lower(email) = lower(${email})))`) as Raw[]
        ).map((r) => Number(r.v));
        const leadArr = sql.array(leads, "INT8");
        const mails = count(await tx`DELETE FROM mail_outbox WHERE lead_id = ANY(${leadArr}::bigint[])`);
        await tx`DELETE FROM leads WHERE id = ANY(${leadArr}::bigint[])`;
        // an array literal as one text parameter, cast by PostgreSQL
        const logLiteral = `{${logs.join(",")}}`;
        await tx.unsafe(rollupSql("c.id = ANY($1::bigint[])"), [logLiteral]);
        const anchors = count(
          await tx.unsafe(
            `UPDATE chat_logs SET ${SCRUB_ANCHOR} WHERE id = ANY($1::bigint[]) AND id IN (SELECT chat_log_id FROM corrections)`,
            [logLiteral],
          ),
        );
        const removed = count(
          await tx`DELETE FROM chat_logs WHERE id = ANY(${logArr}::bigint[]) AND id NOT IN (SELECT chat_log_id FROM corrections)`,
        );
        const conversations = count(
          await tx`DELETE FROM conversations WHERE deployment_id = ANY(${deps}::text[]) AND id = ANY(${convArr}::text[])`,
        );
        const [row] = (await tx`INSERT INTO erasures (account_id, subject_kind, subject_hash, deployments, chat_logs, leads, mails,
            conversations, corrections_kept, via, created_at)
          VALUES (${input.accountId}, ${s.kind}, ${input.subjectHash}, ${JSON.stringify(input.deploymentIds)}, ${removed + anchors},
            ${leads.length}, ${mails}, ${conversations}, ${anchors}, ${input.via}, ${at}::bigint) RETURNING *`) as Raw[];
        return toErasure(row as Raw);
      });
    },
    async erasures(accountId, limit) {
      const rows = (await sql`SELECT * FROM erasures WHERE account_id = ${accountId} ORDER BY id DESC LIMIT ${limit}`) as Raw[];
      return rows.map(toErasure);
    },
  };
}

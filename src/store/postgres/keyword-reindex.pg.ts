import type { SQL } from "bun";
import type { ReanalyzedChunk, ReindexChunk } from "../contract/chunk-index.contract.ts";
import { addPostings, countTerms, lockDeployment, rebuildKey } from "./keyword-postings.pg.ts";
import type { Raw } from "./repos/values.ts";

const num = (v: unknown): number => Number(v);

/**
 * Rebuilding a deployment's keyword postings with another analysis (an upgrade, or pinned languages), in batches
 * while the live postings keep answering: the new terms and statistics are written under rebuildKey(deployment),
 * each chunk's new length in kw_length_next, the progress in kw_reindex (a killed rebuild resumes after its last
 * batch); the last step swaps them in under the deployment's lock. The SQLite twin is keyword-tables.ts.
 */
export function createPgKeywordReindex(sql: SQL) {
  /** Drops a rebuild's rows (it was started for another analyzer). */
  async function clearRebuild(tx: SQL, deploymentId: string): Promise<void> {
    const key = rebuildKey(deploymentId);
    await tx`DELETE FROM kw_postings WHERE term_id IN (SELECT id FROM kw_terms WHERE deployment_id = ${key})`;
    await tx`DELETE FROM kw_terms WHERE deployment_id = ${key}`;
    await tx`DELETE FROM kw_stats WHERE deployment_id = ${key}`;
    await tx`UPDATE chunks SET kw_length_next = NULL WHERE deployment_id = ${deploymentId} AND kw_length_next IS NOT NULL`;
    await tx`DELETE FROM kw_reindex WHERE deployment_id = ${deploymentId}`;
  }

  const progress = async (q: SQL, deploymentId: string, analyzer: string): Promise<number> => {
    const r = ((await q`SELECT analyzer, last_id FROM kw_reindex WHERE deployment_id = ${deploymentId}`) as Raw[])[0];
    return r && r.analyzer === analyzer ? num(r.last_id) : 0;
  };

  return {
    /** Deployments whose postings must be rebuilt for `analyzer`: built by another analysis, marked stale, or missing. */
    async keywordReindexPending(analyzer: string): Promise<{ deploymentId: string; chunks: number }[]> {
      // per deployment, index probes only: this runs whenever the training queue is idle
      const rows = (await sql`SELECT d.id AS deployment_id, (SELECT count(*)::int FROM chunks c WHERE c.deployment_id = d.id) AS chunks
        FROM deployments d LEFT JOIN kw_stats s ON s.deployment_id = d.id
        WHERE (s.deployment_id IS NULL AND EXISTS (SELECT 1 FROM chunks c WHERE c.deployment_id = d.id)) OR s.analyzer <> ${analyzer} OR s.stale = 1
        ORDER BY d.id`) as Raw[];
      return rows.map((r) => ({ deploymentId: r.deployment_id as string, chunks: num(r.chunks) }));
    },
    async keywordReindexNext(deploymentId: string, analyzer: string, limit: number): Promise<ReindexChunk[]> {
      const after = await progress(sql, deploymentId, analyzer);
      const rows = (await sql`SELECT id, document_id, text, heading_path, lang FROM chunks
        WHERE deployment_id = ${deploymentId} AND id > ${after} ORDER BY id LIMIT ${limit}`) as Raw[];
      return rows.map((r) => ({
        id: num(r.id),
        documentId: r.document_id as string,
        text: r.text as string,
        headingPath: r.heading_path as string,
        lang: (r.lang as string | null) ?? null,
      }));
    },
    async keywordReindexWrite(deploymentId: string, analyzer: string, batch: ReanalyzedChunk[]): Promise<void> {
      let rows = batch;
      if (rows.length === 0) return;
      await sql.begin(async (tx) => {
        await lockDeployment(tx, deploymentId);
        const r = ((await tx`SELECT analyzer, last_id FROM kw_reindex WHERE deployment_id = ${deploymentId}`) as Raw[])[0];
        if (!r || r.analyzer !== analyzer) {
          await clearRebuild(tx, deploymentId);
          await tx`INSERT INTO kw_reindex (deployment_id, analyzer, last_id) VALUES (${deploymentId}, ${analyzer}, 0)`;
        }
        // another node may have written this batch meanwhile: what it wrote is not written twice
        const done = r && r.analyzer === analyzer ? num(r.last_id) : 0;
        rows = rows.filter((x) => x.id > done);
        if (rows.length === 0) return;
        // chunks deleted since they were read have no row to point at: leave them out
        const alive = new Set(
          (
            (await tx`SELECT id FROM chunks WHERE id = ANY(${sql.array(
              rows.map((x) => x.id),
              "INT8",
            )}::bigint[]) AND deployment_id = ${deploymentId}`) as Raw[]
          ).map((x) => num(x.id)),
        );
        const kept = rows.filter((x) => alive.has(x.id));
        const counted = countTerms(kept.map((x) => ({ terms: x.terms, heading: x.headingTerms })));
        const ids = kept.map((x) => x.id);
        if (kept.length > 0) {
          await addPostings(sql, tx, rebuildKey(deploymentId), ids, counted, analyzer);
          await tx`UPDATE chunks c SET kw_length_next = u.len, lang = u.lang
            FROM unnest(${sql.array(ids, "INT8")}::bigint[], ${sql.array(
              counted.map((c) => c.length),
              "INT4",
            )}::int[], ${sql.array(
              kept.map((x) => x.lang),
              "TEXT",
            )}::text[]) AS u(id, len, lang) WHERE c.id = u.id`;
        }
        await tx`UPDATE kw_reindex SET last_id = ${Math.max(...rows.map((x) => x.id))} WHERE deployment_id = ${deploymentId}`;
      });
    },
    async keywordReindexFinish(deploymentId: string, analyzer: string): Promise<boolean> {
      return sql.begin(async (tx) => {
        await lockDeployment(tx, deploymentId);
        const after = await progress(tx, deploymentId, analyzer);
        const more = (await tx`SELECT 1 FROM chunks WHERE deployment_id = ${deploymentId} AND id > ${after} LIMIT 1`) as Raw[];
        if (more.length > 0) return false;
        const key = rebuildKey(deploymentId);
        await tx`DELETE FROM kw_postings WHERE term_id IN (SELECT id FROM kw_terms WHERE deployment_id = ${deploymentId})`;
        await tx`DELETE FROM kw_terms WHERE deployment_id = ${deploymentId}`;
        await tx`DELETE FROM kw_stats WHERE deployment_id = ${deploymentId}`;
        await tx`UPDATE kw_terms SET deployment_id = ${deploymentId} WHERE deployment_id = ${key}`;
        await tx`INSERT INTO kw_stats (deployment_id, chunks, tokens, analyzer)
          SELECT ${deploymentId}, coalesce(sum(chunks), 0), coalesce(sum(tokens), 0), ${analyzer} FROM kw_stats WHERE deployment_id = ${key}`;
        await tx`DELETE FROM kw_stats WHERE deployment_id = ${key}`;
        await tx`UPDATE chunks SET kw_length = kw_length_next, kw_length_next = NULL WHERE deployment_id = ${deploymentId}`;
        await tx`DELETE FROM kw_reindex WHERE deployment_id = ${deploymentId}`;
        await tx`UPDATE documents SET lang = (SELECT c.lang FROM chunks c WHERE c.document_id = documents.id AND c.lang IS NOT NULL
            GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1)
          WHERE deployment_id = ${deploymentId} AND status = 'completed'`;
        return true;
      });
    },
    async keywordReindexRequest(deploymentId: string): Promise<void> {
      await sql`UPDATE kw_stats SET stale = 1 WHERE deployment_id = ${deploymentId}`;
    },
  };
}

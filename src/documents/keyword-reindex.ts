import type { Logger } from "../log.ts";
import { ANALYZER_VERSION, reanalyze } from "../rag/terms.ts";
import type { ChunkIndexStore } from "../store/contract/index.ts";

/** Chunks re-analyzed per transaction: short writes, so a server keeps answering (and keeps writing chat logs). */
const BATCH = 500;

export interface KeywordReindexDeps {
  index: Pick<
    ChunkIndexStore,
    "keywordReindexPending" | "keywordReindexNext" | "keywordReindexWrite" | "keywordReindexFinish" | "setMeta" | "meta"
  >;
  /** the languages the deployment's owner pinned */
  pinnedLanguages: (deploymentId: string) => Promise<string[]>;
  log?: Logger;
}

export interface ReindexProgress {
  deploymentId: string;
  done: number;
  total: number;
  /** deployments left after this one */
  left: number;
}

/**
 * Rebuilds the keyword index of every deployment whose index another analysis built (a data dir or database from
 * before the analyzer, an analyzer change) or whose owner pinned other languages, in batches: the old index keeps
 * answering until the new one replaces it, and progress is saved with each batch, so a kill -9 loses at most one
 * batch. Returns the chunks re-analyzed.
 */
export async function reindexKeywords(
  deps: KeywordReindexDeps,
  opts: { onProgress?: (p: ReindexProgress) => void; pause?: () => Promise<void>; shouldStop?: () => boolean; batch?: number } = {},
): Promise<number> {
  // new keyword tables and statistics rows record this analyzer (store/keyword-tables.ts)
  if ((await deps.index.meta("keyword_analyzer")) !== ANALYZER_VERSION) await deps.index.setMeta("keyword_analyzer", ANALYZER_VERSION);
  const pending = await deps.index.keywordReindexPending(ANALYZER_VERSION);
  let total = 0;
  for (const [i, p] of pending.entries()) {
    const pinned = await deps.pinnedLanguages(p.deploymentId);
    let done = 0;
    for (;;) {
      if (opts.shouldStop?.()) return total;
      const rows = await deps.index.keywordReindexNext(p.deploymentId, ANALYZER_VERSION, opts.batch ?? BATCH);
      if (rows.length === 0) {
        if (await deps.index.keywordReindexFinish(p.deploymentId, ANALYZER_VERSION)) break;
        continue;
      }
      const analyzed = reanalyze(rows, pinned);
      await deps.index.keywordReindexWrite(
        p.deploymentId,
        ANALYZER_VERSION,
        rows.map((r, j) => ({ id: r.id, ...(analyzed[j] as { lang: string; terms: string; headingTerms: string }) })),
      );
      done += rows.length;
      total += rows.length;
      opts.onProgress?.({ deploymentId: p.deploymentId, done, total: Math.max(done, p.chunks), left: pending.length - i - 1 });
      await opts.pause?.();
    }
    deps.log?.info("keyword index rebuilt", { deployment: p.deploymentId, chunks: done, analyzer: ANALYZER_VERSION });
  }
  return total;
}

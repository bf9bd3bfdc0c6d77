import { join } from "node:path";
import { defaultWorkerCommand } from "../ingest/parse-pool.ts";
import type { ChunkDraft } from "../ingest/types.ts";
import { ANALYZER_VERSION, type ChunkTerms, documentTerms, isLang } from "../rag/terms.ts";

/**
 * A small document's chunks analyzed in the parse worker, beside its parsing (prepare-worker.ts), rather than on
 * the server's thread as they are trained: each prepared line then carries its chunk's language and terms, and the
 * analyzer and pinned languages they were made with. The training worker takes them only when both are still the
 * same; otherwise (an upgrade, the owner pinned other languages meanwhile) it analyzes the chunks itself.
 */
interface Analysis extends ChunkTerms {
  analyzedWith: string;
}

// in the owner's order: the first pinned language is detection's fallback when English is not among them
const analyzedWith = (pinned: readonly string[]) => `${ANALYZER_VERSION}|${pinned.join(",")}`;

/**
 * In the parse worker: the chunks of a whole document analyzed as the training worker would (documentLanguage, then
 * chunkTerms: documentTerms gives the same, splitting each chunk into words once).
 */
export function analyzeDrafts(chunks: ChunkDraft[], pinned: string[]): Analysis[] {
  const stamp = analyzedWith(pinned);
  return documentTerms(chunks, pinned).map((t) => ({ ...t, analyzedWith: stamp }));
}

/** In the training worker: the terms the parse worker gave every one of a document's drafts, or null when it gave none or stale ones. */
export function preAnalyzed(drafts: ChunkDraft[], pinned: readonly string[]): ChunkTerms[] | null {
  const stamp = analyzedWith(pinned);
  const out: ChunkTerms[] = [];
  for (const d of drafts as (ChunkDraft & Partial<Analysis>)[]) {
    if (d.analyzedWith !== stamp || !isLang(d.lang) || typeof d.terms !== "string" || typeof d.headingTerms !== "string") return null;
    out.push({ lang: d.lang, terms: d.terms, headingTerms: d.headingTerms });
  }
  return out;
}

/** How the parse pool starts the worker that analyzes (prepare-worker.ts; a compiled binary: itself, with the hidden command). */
export const prepareWorkerCommand = (): string[] => defaultWorkerCommand(join(import.meta.dir, "prepare-worker.ts"));

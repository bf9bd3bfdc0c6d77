import { appError } from "../errors/index.ts";
import type { Embedder } from "../rag/embedder.ts";
import type { ChunkIndexRepo } from "../store/repos/chunk-index.repo.ts";

export class IndexMismatchError extends Error {
  override name = "IndexMismatchError";
}

const KEYWORD_ONLY = "none";

/**
 * The index remembers which embedder (id and dimension) built it. Starting with a different one would mix
 * incomparable vectors, so start-up refuses and names the command that rebuilds the vectors.
 */
export function checkVectorIndex(index: ChunkIndexRepo, embedder: Embedder | null, hasChunks: boolean): void {
  const want = embedder ? `${embedder.id}@${embedder.dimension}` : KEYWORD_ONLY;
  const have = index.meta("embedder");
  if (have === want) return;
  if (have === null && !hasChunks) {
    index.createVectorTable(embedder ? embedder.dimension : null);
    index.setMeta("embedder", want);
    return;
  }
  throw new IndexMismatchError(
    `The index was built with embedder "${have ?? KEYWORD_ONLY}" but the configured embedder is "${want}". ` +
      `Run "docchat reindex" to rebuild the vectors with the configured embedder, or set DOCCHAT_EMBEDDER back.`,
  );
}

/** The embedder id and dimension the index was built with (null: none recorded yet, or keyword-only). */
export function recordedEmbedder(index: Pick<ChunkIndexRepo, "meta">): { id: string; dimension: number } | null {
  const m = /^(.*)@(\d+)$/.exec(index.meta("embedder") ?? "");
  return m ? { id: m[1] as string, dimension: Number(m[2]) } : null;
}

/** Rebuilds every chunk's vector with `embedder` (or drops vectors for keyword-only). */
export async function reindexVectors(index: ChunkIndexRepo, embedder: Embedder | null, opts: { batch?: number; onProgress?: (done: number, total: number) => void } = {}): Promise<number> {
  const chunks = index.allChunks();
  index.createVectorTable(embedder ? embedder.dimension : null);
  if (embedder) {
    const batch = opts.batch ?? 32;
    for (let i = 0; i < chunks.length; i += batch) {
      const part = chunks.slice(i, i + batch);
      const vectors = await embedder.embedDocuments(part.map((c) => c.text));
      for (const [j, c] of part.entries()) {
        const v = vectors[j];
        if (!v) throw appError("internal_error");
        index.setVector(c.id, c.deployment_id, v);
        index.cacheVector(embedder.id, c.text_hash, v);
      }
      opts.onProgress?.(Math.min(i + batch, chunks.length), chunks.length);
    }
  }
  index.setMeta("embedder", embedder ? `${embedder.id}@${embedder.dimension}` : KEYWORD_ONLY);
  return chunks.length;
}

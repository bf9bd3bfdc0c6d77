import { appError } from "../errors/index.ts";
import type { Embedder } from "../rag/embedder.ts";
import type { ChunkIndexStore } from "../store/contract/index.ts";

export class IndexMismatchError extends Error {
  override name = "IndexMismatchError";
}

const KEYWORD_ONLY = "none";

/**
 * The index remembers which embedder (id and dimension) built it. Starting with a different one would mix
 * incomparable vectors, so start-up refuses and names the command that rebuilds the vectors.
 */
export async function checkVectorIndex(
  index: ChunkIndexStore,
  embedder: Embedder | null,
  hasChunks: () => Promise<boolean>,
): Promise<void> {
  const want = embedder ? `${embedder.id}@${embedder.dimension}` : KEYWORD_ONLY;
  if ((await index.meta("embedder")) === want) return;
  // Nodes starting together on an empty PostgreSQL index: one creates the vector table, the others wait and then
  // find it (read again under the lock), so none drops a table another has begun to fill.
  const have = await index.exclusive(async () => {
    await index.refresh();
    const now = await index.meta("embedder");
    if (now !== null || (await hasChunks())) return now;
    await index.createVectorTable(embedder ? embedder.dimension : null);
    await index.setMeta("embedder", want);
    return want;
  });
  if (have === want) return;
  throw new IndexMismatchError(
    `The index was built with embedder "${have ?? KEYWORD_ONLY}" but the configured embedder is "${want}". ` +
      `Run "docchat reindex" to rebuild the vectors with the configured embedder, or set DOCCHAT_EMBEDDER back.`,
  );
}

/** The embedder id and dimension the index was built with (null: none recorded yet, or keyword-only). */
export async function recordedEmbedder(index: Pick<ChunkIndexStore, "meta">): Promise<{ id: string; dimension: number } | null> {
  const m = /^(.*)@(\d+)$/.exec((await index.meta("embedder")) ?? "");
  return m ? { id: m[1] as string, dimension: Number(m[2]) } : null;
}

/** Rebuilds every chunk's vector with `embedder` (or drops vectors for keyword-only). */
export async function reindexVectors(
  index: ChunkIndexStore,
  embedder: Embedder | null,
  opts: { batch?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<number> {
  const chunks = await index.allChunks();
  await index.createVectorTable(embedder ? embedder.dimension : null);
  if (embedder) {
    const batch = opts.batch ?? 32;
    for (let i = 0; i < chunks.length; i += batch) {
      const part = chunks.slice(i, i + batch);
      const vectors = await embedder.embedDocuments(part.map((c) => c.text));
      for (const [j, c] of part.entries()) {
        const v = vectors[j];
        if (!v) throw appError("internal_error");
        await index.setVector(c.id, c.deploymentId, v);
        await index.cacheVector(embedder.id, c.textHash, v);
      }
      opts.onProgress?.(Math.min(i + batch, chunks.length), chunks.length);
    }
  }
  await index.setMeta("embedder", embedder ? `${embedder.id}@${embedder.dimension}` : KEYWORD_ONLY);
  return chunks.length;
}

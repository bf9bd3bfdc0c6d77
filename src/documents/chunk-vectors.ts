import type { ChunkDraft } from "../ingest/types.ts";
import type { Embedder } from "../rag/embedder.ts";
import type { ChunkTerms } from "../rag/terms.ts";
import { sha256Hex } from "../shared/sha256.ts";
import type { ChunkIndexStore, DocumentRecord, NewChunk } from "../store/contract/index.ts";

/** A document's citation source: its name without the file extension. */
export function sourceName(name: string): string {
  return name.replace(/\.(pdf|docx|txt|csv|tsv|md)$/i, "");
}

/** The embedding cache's key for a chunk's text. */
export const textHash = sha256Hex;

/**
 * Vectors for `texts`: from the embedding cache where it has them, the rest embedded once per distinct text in
 * ONE call (the embedder batches and bounds concurrency itself: a remote server sees its configured batch size with
 * requests in flight back to back; an ONNX model its own batch size).
 */
async function vectorsOf(
  index: Pick<ChunkIndexStore, "cachedVectors">,
  embedder: Embedder,
  texts: { text: string; hash: string }[],
): Promise<Float32Array[]> {
  const out = await index.cachedVectors(
    embedder.id,
    texts.map((t) => t.hash),
  );
  const missing = out.map((v, i) => (v ? -1 : i)).filter((i) => i >= 0);
  const unique = new Map<string, number[]>();
  for (const i of missing) {
    const t = texts[i] as { text: string; hash: string };
    unique.set(t.hash, [...(unique.get(t.hash) ?? []), i]);
  }
  const order = [...unique.keys()];
  const vectors = await embedder.embedDocuments(
    order.map((h) => (texts[(unique.get(h) as number[])[0] as number] as { text: string }).text),
  );
  order.forEach((h, j) => {
    const v = vectors[j] as Float32Array;
    for (const i of unique.get(h) as number[]) out[i] = v;
  });
  return out as Float32Array[];
}

/**
 * A document's chunk drafts as the chunks the index stores: its source, each text's hash, its keyword terms
 * (`analyzed`: each draft's language and terms) and (with an embedder) a vector.
 */
export async function toChunks(
  index: Pick<ChunkIndexStore, "cachedVectors">,
  doc: Pick<DocumentRecord, "name">,
  drafts: ChunkDraft[],
  embedder: Embedder | null,
  analyzed: ChunkTerms[],
): Promise<NewChunk[]> {
  const source = sourceName(doc.name);
  const hashed = drafts.map((d) => ({ text: d.text, hash: textHash(d.text) }));
  const vectors = embedder ? await vectorsOf(index, embedder, hashed) : [];
  return drafts.map((d, i) => ({
    ord: d.ord,
    source,
    text: d.text,
    headingPath: d.headingPath,
    pageStart: d.pageStart,
    pageEnd: d.pageEnd,
    rowStart: d.rowStart,
    rowEnd: d.rowEnd,
    tokenCount: d.tokenCount,
    textHash: (hashed[i] as { hash: string }).hash,
    vector: vectors[i],
    ...(analyzed[i] as ChunkTerms),
  }));
}

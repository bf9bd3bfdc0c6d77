/**
 * Turns texts into unit-length vectors. Implementations: see rag/embedders/.
 * `id` and `dimension` are stored with the index; a mismatch at start-up refuses to start.
 */
export interface Embedder {
  /** stable identifier, e.g. "onnx:bge-small-en-v1.5", "openai:nomic-embed-text", "gguf:nomic-embed-text-v1.5.Q8_0" */
  readonly id: string;
  readonly dimension: number;
  /** Embeds documents (passages). Returned vectors are L2-normalised. */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  /** Embeds a query (some models use a query prefix). */
  embedQuery(text: string): Promise<Float32Array>;
  close?(): Promise<void>;
}

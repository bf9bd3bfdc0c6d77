/**
 * A serialisable description of an ONNX embedder, so the same choice can be built in this thread or sent to a
 * worker (worker.embedder.ts). transformers.js is imported lazily: it should not load unless chosen.
 */
import type { Embedder } from "../embedder.ts";
import type { OnnxEmbedderOptions } from "./onnx.embedder.ts";

export type EmbedderSpec = { kind: "onnx"; options: OnnxEmbedderOptions };

export async function createInThreadEmbedder(spec: EmbedderSpec): Promise<Embedder> {
  return (await import("./onnx.embedder.ts")).createOnnxEmbedder(spec.options);
}

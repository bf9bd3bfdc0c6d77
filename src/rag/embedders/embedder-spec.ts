/**
 * A serialisable description of an embedder, so the same choice can be built in this thread or sent to a worker.
 * Each kind is imported lazily: use-lite pulls in TensorFlow.js and word-vectors a 307 MB JSON file, neither of
 * which should load unless chosen.
 */
import type { Embedder } from "../embedder.ts";
import type { OnnxEmbedderOptions } from "./onnx.embedder.ts";
import type { UseLiteOptions } from "./use-lite.embedder.ts";
import type { WordVectorsOptions } from "./word-vectors.embedder.ts";

export type EmbedderSpec =
  | { kind: "onnx"; options: OnnxEmbedderOptions }
  | { kind: "use-lite"; options?: UseLiteOptions }
  | { kind: "word-vectors"; options?: WordVectorsOptions };

export async function createInThreadEmbedder(spec: EmbedderSpec): Promise<Embedder> {
  switch (spec.kind) {
    case "onnx":
      return (await import("./onnx.embedder.ts")).createOnnxEmbedder(spec.options);
    case "use-lite":
      return (await import("./use-lite.embedder.ts")).createUseLiteEmbedder(spec.options);
    case "word-vectors":
      return (await import("./word-vectors.embedder.ts")).createWordVectorsEmbedder(spec.options);
  }
}

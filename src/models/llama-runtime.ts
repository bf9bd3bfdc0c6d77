/**
 * One node-llama-cpp runtime for the in-process GGUF embedder and reranker. build: "never" — a missing
 * prebuilt binary must fail fast, never start a compiler inside a server. CPU only, like the answer model.
 */
import { availableParallelism } from "node:os";
import type { Llama, LlamaModel } from "node-llama-cpp";

/** llama.cpp's threads spin while they wait; on every core they starve the HTTP process (see llama-cpp.backend.ts). */
export const defaultLlamaThreads = () => Math.max(1, Math.floor(availableParallelism() / 2));

let runtime: Promise<Llama> | null = null;

export async function loadGgufModel(modelPath: string): Promise<LlamaModel> {
  runtime ??= import("node-llama-cpp").then((m) => m.getLlama({ gpu: false, build: "never", logLevel: m.LlamaLogLevel.error }));
  const llama = await runtime.catch((e: unknown) => {
    runtime = null;
    throw e;
  });
  return llama.loadModel({ modelPath });
}

/**
 * One node-llama-cpp runtime for the in-process GGUF embedder and reranker. build: "never" — a missing
 * prebuilt binary must fail fast, never start a compiler inside a server. CPU only, like the answer model.
 */
import { availableParallelism } from "node:os";
import type { Llama, LlamaModel } from "node-llama-cpp";

/** llama.cpp's threads spin while they wait; on every core they starve the HTTP process (see llama-cpp.backend.ts). */
export const defaultLlamaThreads = () => Math.max(1, Math.floor(availableParallelism() / 2));

let runtime: Promise<Llama> | null = null;

async function startRuntime(): Promise<Llama> {
  const m = await import("node-llama-cpp");
  // getLlama checks its native binding by forking process.execPath, which in the compiled binary is docchat itself;
  // BUN_BE_BUN makes that fork plain Bun. It is set only while getLlama runs, which the server does at start-up
  // (startWorkers, before it listens), so docchat's own worker children never see it.
  const flag = Bun.isStandaloneExecutable && process.env.BUN_BE_BUN === undefined;
  if (flag) process.env.BUN_BE_BUN = "1";
  try {
    return await m.getLlama({ gpu: false, build: "never", logLevel: m.LlamaLogLevel.error });
  } finally {
    if (flag) delete process.env.BUN_BE_BUN;
  }
}

export async function loadGgufModel(modelPath: string): Promise<LlamaModel> {
  runtime ??= startRuntime();
  const llama = await runtime.catch((e: unknown) => {
    runtime = null;
    throw e;
  });
  return llama.loadModel({ modelPath });
}

import type { Config } from "../config/index.ts";
import type { LlmBackendConfig } from "../llm/create-backend.ts";
import { findGgufFiles } from "../models/gguf-role.ts";

/**
 * GGUF chat models dropped into the models folder, sorted by name. Embedding models and rerankers (told apart by
 * their metadata, see models/gguf-role.ts) are not chat models and are left to the embedder and reranker.
 */
export function findGgufModels(modelsDir: string): string[] {
  return findGgufFiles(modelsDir)
    .filter((g) => g.role === "chat")
    .map((g) => g.path);
}

/**
 * DOCCHAT_LLM=auto: an upstream URL means openai, a .gguf model path means llama, else the first .gguf file in
 * the models folder, otherwise extractive.
 */
export function llmBackendConfig(config: Config): LlmBackendConfig {
  const gguf = /\.gguf$/i.test(config.llmModel)
    ? config.llmModel
    : config.llm === "auto" && !config.llmUrl
      ? findGgufModels(config.modelsDir)[0]
      : undefined;
  const kind = config.llm !== "auto" ? config.llm : config.llmUrl ? "openai" : gguf ? "llama" : "extractive";
  return {
    kind,
    url: config.llmUrl || undefined,
    model: config.llmModel || undefined,
    modelPath: kind === "llama" ? (gguf ?? config.llmModel) : undefined,
    apiKey: config.llmApiKey || undefined,
    threads: config.llmThreads || undefined,
    contextSize: config.llmContextTokens,
    firstTokenTimeoutMs: config.llmFirstTokenTimeoutMs,
    totalTimeoutMs: config.llmTimeoutMs,
    // A compiled binary runs the llama worker as itself (see main.ts); from source the default entry is used.
    workerCommand: kind === "llama" && Bun.isStandaloneExecutable ? [process.execPath, "__llama-worker"] : undefined,
    concurrency: config.llmConcurrency,
    maxQueue: config.llmQueue,
    maxQueuePerDeployment: config.llmQueuePerDeployment,
    maxQueuePerAccount: config.llmQueuePerAccount,
  };
}

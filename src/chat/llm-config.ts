import type { Config } from "../config/index.ts";
import type { LlmBackendConfig } from "../llm/create-backend.ts";

/** DOCCHAT_LLM=auto: an upstream URL means openai, a .gguf model path means llama, otherwise extractive. */
export function llmBackendConfig(config: Config): LlmBackendConfig {
  const kind = config.llm !== "auto" ? config.llm : config.llmUrl ? "openai" : /\.gguf$/i.test(config.llmModel) ? "llama" : "extractive";
  return {
    kind,
    url: config.llmUrl || undefined,
    model: config.llmModel || undefined,
    modelPath: kind === "llama" ? config.llmModel : undefined,
    apiKey: config.llmApiKey || undefined,
    threads: config.llmThreads || undefined,
    firstTokenTimeoutMs: config.llmFirstTokenTimeoutMs,
    totalTimeoutMs: config.llmTimeoutMs,
    // A compiled binary runs the llama worker as itself (see main.ts); from source the default entry is used.
    workerCommand: kind === "llama" && Bun.isStandaloneExecutable ? [process.execPath, "__llama-worker"] : undefined,
    concurrency: config.llmConcurrency,
    maxQueue: config.llmQueue,
  };
}

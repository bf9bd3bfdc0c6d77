import { appError } from "../errors/index.ts";
import type { CircuitBreaker } from "../net/circuit-breaker.ts";
import type { AnswerComposer, LlmBackend } from "./backend.ts";
import { createExtractiveBackend } from "./backends/extractive.backend.ts";
import { createLlamaCppBackend } from "./backends/llama-cpp.backend.ts";
import { createOpenAiCompatibleBackend } from "./backends/openai-compatible.backend.ts";
import { createBoundedBackend } from "./queue.ts";
import { observeQueue, type QueueObserver } from "./queue-observer.ts";

export interface LlmBackendConfig {
  kind: "extractive" | "openai" | "llama";
  /** openai: base URL of the upstream, e.g. http://127.0.0.1:11434/v1 */
  url?: string;
  /** openai: the upstream's model name; llama: path of the GGUF file (same as modelPath) */
  model?: string;
  modelPath?: string;
  apiKey?: string;
  threads?: number;
  contextSize?: number;
  connectTimeoutMs?: number;
  firstTokenTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** llama: model load deadline */
  startTimeoutMs?: number;
  /** llama: how to launch the worker (compiled binary: [process.execPath, "__llama-worker"]) */
  workerCommand?: string[];
  /** when set, requests beyond concurrency + maxQueue fail fast with `overloaded` */
  concurrency?: number;
  maxQueue?: number;
  maxQueuePerDeployment?: number;
  maxQueuePerAccount?: number;
}

function missing(what: string): never {
  throw appError("bad_request", { message: `LLM backend configuration is missing ${what}.`, param: what });
}

function createUnbounded(cfg: LlmBackendConfig, composer: AnswerComposer | undefined, breaker?: CircuitBreaker): LlmBackend {
  switch (cfg.kind) {
    case "extractive":
      return createExtractiveBackend(composer ?? missing("composer"));
    case "openai":
      return createOpenAiCompatibleBackend({
        baseUrl: cfg.url ?? missing("url"),
        model: cfg.model ?? missing("model"),
        apiKey: cfg.apiKey,
        connectTimeoutMs: cfg.connectTimeoutMs,
        firstTokenTimeoutMs: cfg.firstTokenTimeoutMs,
        totalTimeoutMs: cfg.totalTimeoutMs,
        breaker,
      });
    case "llama":
      return createLlamaCppBackend({
        modelPath: cfg.modelPath ?? cfg.model ?? missing("modelPath"),
        threads: cfg.threads,
        contextSize: cfg.contextSize,
        command: cfg.workerCommand,
        startTimeoutMs: cfg.startTimeoutMs,
      });
  }
}

/** `composer`: how the extractive backend quotes the documents (rag's composeAnswer), needed for that kind. */
export function createLlmBackend(
  cfg: LlmBackendConfig,
  opts: { queueObserver?: QueueObserver; composer?: AnswerComposer; breaker?: CircuitBreaker } = {},
): LlmBackend {
  const backend = createUnbounded(cfg, opts.composer, opts.breaker);
  const { concurrency } = cfg;
  if (concurrency === undefined) return backend;
  const bound = (inner: LlmBackend) =>
    createBoundedBackend(inner, {
      concurrency,
      maxQueue: cfg.maxQueue ?? 0,
      maxQueuePerDeployment: cfg.maxQueuePerDeployment,
      maxQueuePerAccount: cfg.maxQueuePerAccount,
    });
  return opts.queueObserver ? observeQueue(backend, bound, opts.queueObserver) : bound(backend);
}

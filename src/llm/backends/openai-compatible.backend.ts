import { appError, isAppError } from "../../errors/index.ts";
import type { CircuitBreaker } from "../../net/circuit-breaker.ts";
import { capStream, readCappedText } from "../../net/read-capped.ts";
import type { CompleteRequest, GenerateEvent, GenerateRequest, LlmBackend, LlmMessage } from "../backend.ts";
import { estimateTokens } from "../estimate-tokens.ts";
import { createDeadlines, type Deadlines } from "./deadlines.ts";
import { buildChatBody, isTokenCount, parseChunk } from "./openai-wire.ts";
import { readSseData } from "./sse-data.ts";

export interface OpenAiCompatibleOptions {
  /** e.g. http://127.0.0.1:11434/v1 (Ollama) or https://api.openai.com/v1 */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** until the upstream answers with status and headers */
  connectTimeoutMs?: number;
  /** from the headers until the first content delta; a loaded upstream can queue us here */
  firstTokenTimeoutMs?: number;
  /** the whole call, streaming included */
  totalTimeoutMs?: number;
  retryAfterSeconds?: number;
  /** the upstream's circuit: while open, answers fail at once with backend_down instead of waiting out deadlines */
  breaker?: CircuitBreaker;
}

/** An error body is read up to this (for the log); a reply or a stream up to MAX_REPLY_BYTES. */
const MAX_ERROR_BYTES = 64 * 1024;
/** Far above any answer's max_tokens; an upstream streaming past it is broken or hostile. */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

export function createOpenAiCompatibleBackend(opts: OpenAiCompatibleOptions): LlmBackend {
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const firstTokenTimeoutMs = opts.firstTokenTimeoutMs ?? 60_000;
  const totalTimeoutMs = opts.totalTimeoutMs ?? 300_000;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;

  // The upstream's own words go into `cause` (logged), never into the visitor-facing message.
  const down = (reason: string, cause?: unknown) =>
    appError("backend_down", {
      headers: { "Retry-After": String(opts.retryAfterSeconds ?? 5) },
      cause: new Error(`openai-compatible upstream: ${reason}`, { cause }),
    });

  async function post(body: string, deadlines: Deadlines): Promise<Response> {
    if (opts.breaker && !opts.breaker.allow()) {
      throw appError("backend_down", {
        headers: { "Retry-After": String(Math.max(1, Math.ceil(opts.breaker.retryInMs() / 1000))) },
        cause: new Error("openai-compatible upstream: circuit open after repeated failures"),
      });
    }
    const clearConnect = deadlines.arm(connectTimeoutMs, "connect timeout");
    const res = await fetch(url, { method: "POST", headers, body, signal: deadlines.signal });
    clearConnect();
    if (!res.ok) {
      const detail = await readCappedText(res, MAX_ERROR_BYTES).catch(() => "");
      throw down(`status ${res.status}: ${detail.slice(0, 200)}`);
    }
    return res;
  }

  /** The chat completion request for the configured model. */
  const bodyFor = (req: Pick<CompleteRequest, "messages" | "maxTokens" | "temperature">, stream: boolean) =>
    buildChatBody({ model: opts.model, messages: req.messages, maxTokens: req.maxTokens, temperature: req.temperature, stream });
  /** What a failed call throws: our own errors as they are, anything else (a timeout, a socket) as backend_down. */
  const asDown = (e: unknown, deadlines: Deadlines) => (isAppError(e) ? e : down(deadlines.expired ?? "request failed", e));
  /** A failure the circuit should hear of: not the caller's own abort, not the circuit's own refusal. */
  const failed = (e: unknown, signal: AbortSignal | undefined) => {
    const refusedByCircuit = isAppError(e) && /circuit open/.test(String((e.cause as Error | undefined)?.message));
    if (!signal?.aborted && !refusedByCircuit) opts.breaker?.failure(String((e as Error)?.message ?? e));
  };

  async function* generate(req: GenerateRequest): AsyncGenerator<GenerateEvent> {
    if (req.signal?.aborted) return;
    const deadlines = createDeadlines(req.signal);
    deadlines.arm(totalTimeoutMs, "total timeout");
    let text = "";
    let finishReason: "stop" | "length" | undefined;
    let usage: { prompt: number; completion: number } | undefined;
    try {
      const body = bodyFor(req, true);
      const res = await post(body, deadlines);
      if (!res.body) throw down("empty body");
      let clearFirstToken: (() => void) | undefined = deadlines.arm(firstTokenTimeoutMs, "first-token timeout");
      let sawDone = false;
      for await (const data of readSseData(capStream(res.body, MAX_REPLY_BYTES))) {
        if (data === "[DONE]") {
          sawDone = true;
          break;
        }
        const chunk = parseChunk(data);
        if (!chunk || chunk.error !== undefined) throw down(`bad frame: ${data.slice(0, 200)}`);
        const choice = chunk.choices?.[0];
        const delta = choice?.delta?.content;
        if (delta) {
          clearFirstToken?.();
          clearFirstToken = undefined;
          if (req.signal?.aborted) return;
          text += delta;
          yield { type: "delta", text: delta };
        }
        if (choice?.finish_reason) finishReason = choice.finish_reason === "length" ? "length" : "stop";
        const u = chunk.usage;
        if (u && isTokenCount(u.prompt_tokens) && isTokenCount(u.completion_tokens)) {
          usage = { prompt: u.prompt_tokens, completion: u.completion_tokens };
        }
      }
      // A stream cut off mid-answer must not pass for a complete one.
      if (!sawDone && !finishReason) throw down("stream ended without [DONE] or finish_reason");
      opts.breaker?.success();
    } catch (e) {
      failed(e, req.signal);
      if (req.signal?.aborted) return;
      throw asDown(e, deadlines);
    } finally {
      deadlines.dispose();
    }
    yield {
      type: "done",
      promptTokens: usage?.prompt ?? estimateMessages(req.messages),
      completionTokens: usage?.completion ?? estimateTokens(text),
      finishReason: finishReason ?? "stop",
    };
  }

  async function complete(req: CompleteRequest): Promise<string> {
    const deadlines = createDeadlines(req.signal);
    deadlines.arm(req.timeoutMs ?? totalTimeoutMs, "total timeout");
    try {
      const body = bodyFor(req, false);
      const res = await post(body, deadlines);
      const content = parseChunk(await readCappedText(res, MAX_REPLY_BYTES))?.choices?.[0]?.message?.content;
      if (typeof content !== "string") throw down("response without choices[0].message.content");
      opts.breaker?.success();
      return content;
    } catch (e) {
      failed(e, req.signal);
      // The caller gave up: hand back its own abort reason rather than blaming the upstream.
      if (req.signal?.aborted) throw req.signal.reason;
      throw asDown(e, deadlines);
    } finally {
      deadlines.dispose();
    }
  }

  return {
    name: "openai",
    generate,
    complete,
    // No tokenizer for an arbitrary upstream model; the estimate is what budgets and billing fall back to.
    countTokens: async (text) => estimateTokens(text),
    close: async () => {},
  };
}

function estimateMessages(messages: LlmMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateTokens(m.content) + 4, 0);
}

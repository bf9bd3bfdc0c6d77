import type { LlmMessage } from "../backend.ts";

/** The parts of an OpenAI chat-completions chunk / response we read; everything is optional on the wire. */
export interface ChatCompletionChunk {
  choices?: {
    delta?: { content?: string | null };
    message?: { content?: string | null };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: unknown;
}

export function buildChatBody(opts: {
  model: string;
  messages: LlmMessage[];
  maxTokens: number;
  temperature: number;
  stream: boolean;
}): string {
  return JSON.stringify({
    model: opts.model,
    messages: opts.messages,
    max_tokens: opts.maxTokens,
    temperature: opts.temperature,
    stream: opts.stream,
    ...(opts.stream ? { stream_options: { include_usage: true } } : {}),
  });
}

/** Returns undefined for anything that is not a JSON object, so the caller can report a malformed stream. */
export function parseChunk(data: string): ChatCompletionChunk | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as ChatCompletionChunk) : undefined;
  } catch {
    return undefined;
  }
}

export function isTokenCount(n: unknown): n is number {
  return typeof n === "number" && Number.isInteger(n) && n >= 0;
}

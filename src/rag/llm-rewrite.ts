import type { CompleteRequest, LlmMessage } from "../llm/backend.ts";
import { queryTerms } from "./terms.ts";

export interface RewriteTurn {
  question: string;
  answer: string;
}

export interface ModelRewrite {
  query: string;
  promptTokens: number;
  completionTokens: number;
}

const INSTRUCTIONS =
  "You rewrite a visitor's follow-up question into one standalone question for a document search. Use the " +
  "conversation only to resolve what the follow-up refers to. Reply with the standalone question alone, on one " +
  "line, in the visitor's language. If the question already stands alone, repeat it unchanged.";

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

export function rewriteMessages(question: string, history: RewriteTurn[]): LlmMessage[] {
  const convo = history
    .slice(-4)
    .map((t) => `Visitor: ${clip(t.question, 400)}\nAssistant: ${clip(t.answer, 300)}`)
    .join("\n");
  return [
    { role: "system", content: INSTRUCTIONS },
    { role: "user", content: `Conversation:\n${convo}\n\nFollow-up: ${clip(question, 1000)}\nStandalone question:` },
  ];
}

/** The model's reply as a query, or null when it is not one line of searchable text. */
export function cleanRewrite(raw: string): string | null {
  const line = raw
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (!line) return null;
  const q = line
    .replace(/^(standalone question|question|rewritten question)\s*:\s*/i, "")
    .replace(/^["'“”«]+|["'“”»]+$/gu, "")
    .trim();
  return q.length >= 3 && q.length <= 400 && queryTerms(q).length > 0 ? q : null;
}

/**
 * One short, bounded model call that resolves a follow-up. Any failure (timeout, backend down, an
 * unusable reply) returns null and the caller keeps the deterministic rewrite.
 */
export async function rewriteWithModel(
  model: { complete(req: CompleteRequest): Promise<string>; countTokens(text: string): Promise<number> },
  input: { question: string; history: RewriteTurn[]; signal?: AbortSignal; timeoutMs: number; maxTokens: number },
): Promise<ModelRewrite | null> {
  const messages = rewriteMessages(input.question, input.history);
  try {
    const raw = await model.complete({
      messages,
      maxTokens: input.maxTokens,
      temperature: 0,
      signal: input.signal,
      timeoutMs: input.timeoutMs,
    });
    const query = cleanRewrite(raw);
    if (!query) return null;
    const promptTokens = await model.countTokens(messages.map((m) => m.content).join("\n"));
    return { query, promptTokens, completionTokens: await model.countTokens(raw) };
  } catch {
    return null;
  }
}

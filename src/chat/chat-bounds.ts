import { appError } from "../errors/index.ts";

/**
 * Documented request bounds (docs/chat.md): the same ranges OpenAI documents for temperature, a
 * max_tokens ceiling that keeps one answer from draining a balance, and a question length cap.
 */
export const CHAT_BOUNDS = {
  temperature: { min: 0, max: 2 },
  maxTokens: { min: 1, max: 4096 },
  questionChars: 8000,
  /** one earlier message (an assistant answer of 4096 tokens fits) */
  historyTurnChars: 16_000,
  /** all earlier messages together */
  historyChars: 64_000,
  messages: 100,
  conversationIdChars: 200,
} as const;

const bad = (param: string, message: string) => appError("bad_request", { param, message });

export function checkTemperature(v: number | undefined): void {
  const { min, max } = CHAT_BOUNDS.temperature;
  if (v !== undefined && !(Number.isFinite(v) && v >= min && v <= max))
    throw bad("temperature", `temperature must be a number from ${min} to ${max}.`);
}

export function checkMaxTokens(v: number | undefined): void {
  const { min, max } = CHAT_BOUNDS.maxTokens;
  if (v !== undefined && !(Number.isInteger(v) && v >= min && v <= max))
    throw bad("max_tokens", `max_tokens must be an integer from ${min} to ${max}.`);
}

export function checkQuestion(q: string, param: string): string {
  const question = q.trim();
  if (!question) throw bad(param, "A question is required.");
  if (question.length > CHAT_BOUNDS.questionChars)
    throw bad(param, `The question must be at most ${CHAT_BOUNDS.questionChars} characters.`);
  return question;
}

/** Each history message and their sum are bounded, so a request can't buy a huge prompt with the owner's balance. */
export function checkHistory(history: { content: string }[], paramOf: (i: number) => string): void {
  let total = 0;
  history.forEach((m, i) => {
    if (m.content.length > CHAT_BOUNDS.historyTurnChars)
      throw bad(paramOf(i), `Each earlier message must be at most ${CHAT_BOUNDS.historyTurnChars} characters.`);
    total += m.content.length;
    if (total > CHAT_BOUNDS.historyChars)
      throw bad(paramOf(i), `The earlier messages must be at most ${CHAT_BOUNDS.historyChars} characters together.`);
  });
}

export function checkThreadKey(v: string | undefined, param: string): void {
  if (v === undefined) return;
  if (v.length > CHAT_BOUNDS.conversationIdChars || /[\u0000-\u001f\u007f]/.test(v)) {
    throw bad(param, `${param} must be at most ${CHAT_BOUNDS.conversationIdChars} printable characters.`);
  }
}

import type { GenerateEvent, GenerateRequest, LlmBackend } from "../backend.ts";
import { estimateTokens } from "../estimate-tokens.ts";
import { extractTerms, splitSentences, toWordGroups } from "./extractive-text.ts";

/** Said when there is nothing to quote: we never invent text, so we say what we are instead. */
export const NO_MODEL_REPLY =
  "I am a document assistant and no language model is configured here, so I can only answer questions from " +
  "the documents I have been given.";

const MAX_SENTENCES = 3;
const WORDS_PER_DELTA = 4;
/** Follow-up sentences must carry most of the best sentence's weight; one shared word makes noise, not an answer. */
const MIN_RELATIVE_SCORE = 0.6;

interface Candidate {
  text: string;
  passage: number;
  position: number;
  score: number;
}

/** Scores every sentence by the IDF-weighted query terms it contains; IDF is over the given passages. */
function scoreSentences(passages: { text: string }[], question: string): Candidate[] {
  const queryTerms = new Set(extractTerms(question));
  const passageTerms = passages.map((p) => new Set(extractTerms(p.text)));
  const idf = (term: string) => {
    const df = passageTerms.filter((terms) => terms.has(term)).length;
    return df === 0 ? 0 : Math.log(1 + passages.length / df);
  };
  return passages.flatMap((p, passage) =>
    splitSentences(p.text).map((text, position) => {
      const terms = new Set(extractTerms(text));
      let score = 0;
      for (const term of queryTerms) if (terms.has(term)) score += idf(term);
      return { text, passage, position, score };
    }),
  );
}

/** Picks the best sentences within the token budget, then restores document order so the answer reads naturally. */
export function composeExtractiveAnswer(
  passages: { text: string }[],
  question: string,
  maxTokens: number,
): { text: string; truncated: boolean } {
  const candidates = scoreSentences(passages, question);
  const ranked = candidates
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.passage - b.passage || a.position - b.position);
  // The gate upstream already judged the passages relevant, so with no term overlap we quote the best passage's lead.
  const first = ranked[0] ?? candidates[0];
  if (!first) return { text: "", truncated: false };

  const chosen: Candidate[] = [first];
  let used = estimateTokens(first.text);
  for (const c of ranked.slice(1)) {
    if (chosen.length >= MAX_SENTENCES || c.score < first.score * MIN_RELATIVE_SCORE) break;
    const cost = estimateTokens(c.text);
    if (used + cost > maxTokens) continue;
    chosen.push(c);
    used += cost;
  }
  chosen.sort((a, b) => a.passage - b.passage || a.position - b.position);
  return fitToBudget(chosen.map((c) => c.text).join(" "), maxTokens);
}

function fitToBudget(text: string, maxTokens: number): { text: string; truncated: boolean } {
  if (estimateTokens(text) <= maxTokens) return { text, truncated: false };
  return { text: truncateToTokens(text, maxTokens), truncated: true };
}

/** Cuts at a word boundary so the quote stays a verbatim prefix of the sentence. */
function truncateToTokens(text: string, maxTokens: number): string {
  let out = "";
  for (const word of text.match(/\S+\s*/g) ?? []) {
    // at least one word, so a tiny budget still yields a (verbatim) start rather than nothing
    if (out && estimateTokens(out + word) > maxTokens) break;
    out += word;
  }
  return out.trimEnd();
}

function lastUserMessage(req: GenerateRequest): string {
  return [...req.messages].reverse().find((m) => m.role === "user")?.content ?? "";
}

export function createExtractiveBackend(): LlmBackend {
  async function* generate(req: GenerateRequest): AsyncGenerator<GenerateEvent> {
    const question = req.question ?? lastUserMessage(req);
    const passages = req.passages ?? [];
    const budget = Math.max(1, req.maxTokens);
    const { text, truncated } =
      passages.length > 0 ? composeExtractiveAnswer(passages, question, budget) : fitToBudget(NO_MODEL_REPLY, budget);
    for (const delta of toWordGroups(text, WORDS_PER_DELTA)) {
      if (req.signal?.aborted) return;
      yield { type: "delta", text: delta };
    }
    if (req.signal?.aborted) return;
    const prompt = [question, ...passages.map((p) => p.text)].join("\n");
    yield {
      type: "done",
      promptTokens: estimateTokens(prompt),
      completionTokens: estimateTokens(text),
      finishReason: truncated ? "length" : "stop",
    };
  }

  return {
    name: "extractive",
    generate,
    countTokens: async (text) => estimateTokens(text),
    close: async () => {},
  };
}

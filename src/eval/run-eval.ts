import type { ChatRequest, SourcesEvent } from "../chat/chat.types.ts";
import { AppError } from "../errors/index.ts";
import type { EvalCase } from "./eval-cases.ts";
import { buildReport, type CaseOutcome, type EvalReport, judge } from "./eval-report.ts";

/** The one thing eval needs of the chat pipeline: the same `answer()` the API streams from. */
export interface AnswerPipeline {
  answer(input: ChatRequest, signal: AbortSignal): AsyncGenerator<import("../chat/chat.types.ts").ChatEvent>;
}

export interface EvalTarget {
  deployment: ChatRequest["deployment"];
  account: ChatRequest["account"];
}

/** One case through the pipeline, as a visitor sending the whole history (style A) would ask it. */
async function runCase(chat: AnswerPipeline, target: EvalTarget, c: EvalCase, signal: AbortSignal): Promise<CaseOutcome> {
  const started = performance.now();
  let sources: SourcesEvent | null = null;
  let answer = "";
  try {
    for await (const ev of chat.answer(
      { ...target, endpoint: "eval", question: c.question, questionParam: "question", history: c.history },
      signal,
    )) {
      if (ev.type === "sources") sources = ev;
      else if (ev.type === "delta") answer += ev.text;
      else if (ev.type === "done") answer = ev.answer;
      else if (ev.type === "error") throw ev.error;
    }
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const ms = performance.now() - started;
    return { answer, refused: false, sources: [], context: [], searchQuery: c.question, relevance: 0, confidence: null, ms, error: e.code };
  }
  const byId = new Map((sources?.hits ?? []).map((h) => [h.chunkId, h.text]));
  return {
    answer,
    refused: sources?.refused ?? false,
    sources: sources?.sources ?? [],
    context: (sources?.contextIds ?? []).flatMap((id) => byId.get(id) ?? []),
    searchQuery: sources?.searchQuery ?? c.question,
    relevance: (sources?.hits ?? []).reduce((m, h) => Math.max(m, h.relevance), 0),
    confidence: sources?.confidence ?? null,
    ms: performance.now() - started,
  };
}

/**
 * Runs every case, one at a time (so latencies are what one visitor sees), and judges it. `onCase` reports
 * progress. Stops early, with what it has, when `signal` aborts.
 */
export async function runEval(input: {
  chat: AnswerPipeline;
  target: EvalTarget;
  cases: EvalCase[];
  signal?: AbortSignal;
  onCase?: (done: number, total: number) => void;
}): Promise<EvalReport> {
  const signal = input.signal ?? new AbortController().signal;
  const judged = [];
  for (const c of input.cases) {
    if (signal.aborted) break;
    judged.push(judge(c, await runCase(input.chat, input.target, c, signal)));
    input.onCase?.(judged.length, input.cases.length);
  }
  return buildReport(judged);
}

import type { ChatService } from "../chat/chat.service.ts";
import { citationsOf } from "../chat/citations.ts";
import { AppError } from "../errors/index.ts";
import { judge } from "../eval/eval-report.ts";
import type { Account, Citation, Deployment, TestKind } from "../store/contract/index.ts";

/**
 * The owner's checks through the dry pipeline (the API's own, recording and charging nothing): re-asking a question
 * to see whether it is answered now, and running a test question and judging it with the eval engine's judge
 * (src/eval): an answer passes when it contains any expected string, a "should refuse" question when it is refused.
 */
export interface CheckCase {
  question: string;
  history: { role: "user" | "assistant"; content: string }[];
  kind: TestKind;
  expectAny: string[];
}

export interface CheckOutcome {
  answered: boolean;
  refused: boolean;
  answer: string;
  searchQuery: string;
  sources: string[];
  citations: Citation[];
  /** the pipeline's confidence in the answer (low: the closest passage only); null for a refusal or correction */
  confidence: "high" | "low" | null;
  error: string | null;
}

/** The eval engine's verdict (correct, wrong, weak, refused, refused_right, answered_wrongly, error) and whether it passes. */
export function judgeCase(c: CheckCase, o: CheckOutcome): { verdict: string; passed: boolean } {
  const { verdict } = judge(
    { id: "owner", kind: c.kind, style: "owner", question: c.question, history: c.history, expectAny: c.expectAny, doc: "" },
    {
      answer: o.answer,
      refused: o.refused,
      sources: o.sources,
      context: [],
      searchQuery: o.searchQuery,
      relevance: 0,
      confidence: o.confidence,
      ms: 0,
      error: o.error ?? undefined,
    },
  );
  return { verdict, passed: verdict === "correct" || verdict === "refused_right" };
}

/**
 * Asks through the dry pipeline. `gateOnly` stops at the sources event, before any model is called: enough to
 * know whether the question is answered now (the gate, a correction) and from where.
 */
export async function ask(
  dry: ChatService,
  input: { deployment: Deployment; account: Account; question: string; history?: CheckCase["history"]; gateOnly?: boolean },
): Promise<CheckOutcome> {
  const out: CheckOutcome = {
    answered: false,
    refused: false,
    answer: "",
    searchQuery: "",
    sources: [],
    citations: [],
    confidence: null,
    error: null,
  };
  const signal = AbortSignal.timeout(120_000);
  try {
    for await (const ev of dry.answer(
      {
        deployment: input.deployment,
        account: input.account,
        endpoint: "owner-check",
        question: input.question,
        history: input.history ?? [],
      },
      signal,
    )) {
      if (ev.type === "sources") {
        out.refused = ev.refused;
        out.answered = !ev.refused;
        out.searchQuery = ev.searchQuery;
        out.confidence = ev.confidence;
        out.sources = ev.sources;
        out.citations = citationsOf(ev.hits.filter((h) => ev.sources.includes(h.source)).slice(0, 5));
        if (ev.correctionId !== null) out.sources = ["(your correction)"];
        if (input.gateOnly) break;
      } else if (ev.type === "delta") out.answer += ev.text;
      else if (ev.type === "error") out.error = ev.error.code;
      else if (ev.type === "done") out.answer = ev.answer;
    }
  } catch (e) {
    // no_tokens after the gate still means the documents answer it; anything else is the run's error
    if (e instanceof AppError && e.code === "no_tokens") {
      out.answered = true;
      if (!input.gateOnly) out.error = e.code;
    } else out.error = e instanceof AppError ? e.code : "internal";
  }
  return out;
}

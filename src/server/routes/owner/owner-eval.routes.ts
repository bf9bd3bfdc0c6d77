import { t } from "elysia";
import type { Services } from "../../../app.ts";
import { MAX_CASES } from "../../../eval/eval-cases.ts";
import { deploymentParams } from "./owner.schemas.ts";
import { deploymentRoutes, type OwnerGuard } from "./owner-guard.ts";

const group = t.Object({
  cases: t.Integer(),
  answer_cases: t.Integer(),
  refuse_cases: t.Integer(),
  correct: t.Number(),
  wrong: t.Number(),
  weak: t.Number(),
  answerable_refused: t.Number(),
  refusals_right: t.Number(),
  errors: t.Integer(),
  context_recall: t.Number(),
  source_precision: t.Union([t.Number(), t.Null()]),
  source_recall: t.Union([t.Number(), t.Null()]),
  mean_words: t.Number(),
  p90_words: t.Number(),
  latency_ms: t.Object({ p50: t.Number(), p95: t.Number() }),
});

const evalReport = t.Object({
  overall: group,
  by_style: t.Record(t.String(), group),
  by_kind: t.Record(t.String(), group),
  cases: t.Array(
    t.Object({
      id: t.String(),
      kind: t.String(),
      style: t.String(),
      verdict: t.String(),
      context_hit: t.Boolean(),
      question: t.String(),
      search_query: t.String(),
      relevance: t.Number(),
      confidence: t.Union([t.Literal("high"), t.Literal("low"), t.Null()]),
      answer: t.String(),
      sources: t.Array(t.String()),
      ms: t.Number(),
      error: t.Optional(t.String()),
    }),
  ),
});

/** `docchat eval` for the console: the owner's cases through the answering pipeline, judged; nothing logged or charged. */
export function ownerEvalRoutes(services: Services, guard: OwnerGuard) {
  return deploymentRoutes(guard, "owner-eval").post(
    "/eval",
    async ({ deployment, session, request, body }) => {
      return services.eval.run(deployment.id, body, { accountId: session.account.id, signal: request.signal });
    },
    {
      params: deploymentParams,
      // each case is validated by the eval engine, which names the offending path (cases[3].expect_any)
      body: t.Object({ cases: t.Array(t.Unknown(), { maxItems: MAX_CASES }) }),
      response: { 200: evalReport },
      detail: {
        summary:
          "Run evaluation cases (docs/eval.md) through the answering pipeline and report correct, wrong, weak, refused, context recall and more, overall and per style and kind",
        tags: ["eval"],
      },
    },
  );
}

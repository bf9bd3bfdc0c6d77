import { t } from "elysia";
import type { Services } from "../../../app.ts";
import { toSeconds } from "../../../shared/wire-time.ts";
import { deploymentParams } from "./owner.schemas.ts";
import { deploymentRoutes, type OwnerGuard } from "./owner-guard.ts";
import {
  conversationParams,
  conversationResponse,
  conversationsQuery,
  conversationsResponse,
  gapAnswerBody,
  gapsQuery,
  gapsResponse,
  testQuestionBody,
  testQuestionParams,
  testQuestionSchema,
  testSummaryResponse,
} from "./owner-insight.schemas.ts";
import { citationView, runView, summaryView, testQuestionView, turnView } from "./owner-insight-views.ts";

const yes = (v: string | undefined) => v === "true" || v === "1";
type TestBody = typeof testQuestionBody.static;
const testInput = (b: TestBody) => ({ question: b.question, kind: b.kind, expectAny: b.expect_any ?? [], history: b.history ?? [] });

/** What visitors asked and what they got (conversations), what the documents miss (content gaps), and the owner's test questions. */
export function ownerInsightRoutes(services: Services, guard: OwnerGuard) {
  return deploymentRoutes(guard, "owner-insight")
    .get(
      "/conversations",
      async ({ deployment, query }) => {
        const r = await services.conversations.list(deployment.id, {
          refused: yes(query.refused),
          ratedDown: yes(query.rated_down),
          handedOff: yes(query.handed_off),
          from: query.from,
          to: query.to,
          tzOffset: query.tz_offset,
          text: query.q,
          limit: query.limit,
          before: query.before,
        });
        return { data: r.data.map(summaryView), next_before: r.nextBefore };
      },
      {
        params: deploymentParams,
        query: conversationsQuery,
        response: { 200: conversationsResponse },
        detail: { summary: "Conversations, newest activity first, filtered by what happened in them", tags: ["chat logs"] },
      },
    )
    .get(
      "/conversations/:conversationId",
      async ({ deployment, params }) => {
        const c = await services.conversations.get(deployment.id, params.conversationId);
        return {
          conversation_id: params.conversationId,
          turns: c.turns.map(turnView),
          leads: c.leads.map((l) => ({ id: l.id, email: l.email, name: l.name, message: l.message, created_at: toSeconds(l.createdAt) })),
        };
      },
      {
        params: conversationParams,
        response: { 200: conversationResponse },
        detail: {
          summary: "One conversation turn by turn: search query, sources and citations, ratings, corrections, leads",
          tags: ["chat logs"],
        },
      },
    )
    .get(
      "/gaps",
      async ({ deployment, session, query }) => {
        const r = await services.contentGaps.report(deployment, session.account, { days: query.days ?? 90 });
        return {
          days: r.days,
          questions: r.questions,
          gap_questions: r.gapQuestions,
          trained_at: toSeconds(r.trainedAt),
          groups: r.groups.map((g) => ({
            terms: g.terms,
            words: g.words,
            count: g.count,
            weight: g.weight,
            last_at: toSeconds(g.lastAt),
            reasons: { refused: g.reasons.refused, weak: g.reasons.weak, rated_down: g.reasons.ratedDown, handed_off: g.reasons.handedOff },
            answered_now: g.answeredNow,
            wordings: g.wordings.map((w) => ({
              question: w.question,
              count: w.count,
              last_at: toSeconds(w.lastAt),
              chat_log_ids: w.chatLogIds.slice(0, 50),
              now_answered: w.nowAnswered,
              now_sources: w.nowSources,
            })),
          })),
        };
      },
      {
        params: deploymentParams,
        query: gapsQuery,
        response: { 200: gapsResponse },
        detail: {
          summary: "Content gaps: refused, weak, rated-0 and handed-off questions grouped by what they ask, with what gets an answer now",
          tags: ["content gaps"],
        },
      },
    )
    .post(
      "/gaps/answer",
      async ({ deployment, body }) => {
        return { corrections: await services.contentGaps.answer(deployment.id, body.chat_log_ids, body.answer) };
      },
      {
        params: deploymentParams,
        body: gapAnswerBody,
        response: { 200: t.Object({ corrections: t.Number({ description: "corrections written, one per distinct wording" }) }) },
        detail: { summary: "Answer a group: the answer is served (free) to each of its wordings", tags: ["content gaps"] },
      },
    )
    .get(
      "/tests",
      async ({ deployment }) => {
        const s = await services.testQuestions.summary(deployment.id);
        return {
          questions: (await services.testQuestions.list(deployment.id)).map(testQuestionView),
          runs: s.runs.map(runView),
          running: s.running,
          latest: s.latest ? runView(s.latest) : null,
          previous: s.previous ? runView(s.previous) : null,
          results: s.results.map((r) => ({
            test_question_id: r.testQuestionId,
            question: r.question,
            kind: r.kind,
            verdict: r.verdict,
            passed: r.passed,
            change: r.change,
            answer: r.answer,
            search_query: r.searchQuery,
            sources: r.sources,
            citations: r.citations.map(citationView),
          })),
        };
      },
      {
        params: deploymentParams,
        response: { 200: testSummaryResponse },
        detail: {
          summary: "Test questions, their runs, and the latest run's results with the change since the run before",
          tags: ["test questions"],
        },
      },
    )
    .post(
      "/tests",
      async ({ deployment, body, set }) => {
        set.status = 201;
        return testQuestionView(await services.testQuestions.create(deployment.id, testInput(body)));
      },
      {
        params: deploymentParams,
        body: testQuestionBody,
        response: { 201: testQuestionSchema },
        detail: { summary: "Add a test question (expected text, or should refuse)", tags: ["test questions"] },
      },
    )
    .put(
      "/tests/:testId",
      async ({ deployment, params, body }) => {
        return testQuestionView(await services.testQuestions.update(deployment.id, params.testId, testInput(body)));
      },
      {
        params: testQuestionParams,
        body: testQuestionBody,
        response: { 200: testQuestionSchema },
        detail: { summary: "Change a test question", tags: ["test questions"] },
      },
    )
    .delete(
      "/tests/:testId",
      async ({ deployment, params }) => {
        await services.testQuestions.remove(deployment.id, params.testId);
        return { success: true as const };
      },
      {
        params: testQuestionParams,
        response: { 200: t.Object({ success: t.Literal(true) }) },
        detail: { summary: "Remove a test question", tags: ["test questions"] },
      },
    )
    .post(
      "/tests/run",
      async ({ deployment }) => {
        return runView(await services.testQuestions.runNow(deployment));
      },
      {
        params: deploymentParams,
        response: {
          200: t.Object({ id: t.Number(), status: t.String(), total: t.Number(), passed: t.Number() }, { additionalProperties: true }),
        },
        detail: { summary: "Run the test questions now (they also run after every training)", tags: ["test questions"] },
      },
    );
}

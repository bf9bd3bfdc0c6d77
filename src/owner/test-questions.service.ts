import type { ChatService } from "../chat/chat.service.ts";
import { appError } from "../errors/index.ts";
import type { Logger } from "../log.ts";
import type {
  AccountsStore,
  Deployment,
  DeploymentsStore,
  NewTestQuestion,
  TestQuestionsStore,
  TestResult,
  TestRun,
} from "../store/contract/index.ts";
import { ask, judgeCase } from "./owner-checks.ts";

export const MAX_TEST_QUESTIONS = 200;
const MAX_TEXT = 4000;

type QuestionInput = Omit<NewTestQuestion, "deploymentId">;

function checked(q: QuestionInput): QuestionInput {
  const question = q.question.trim();
  if (!question || question.length > MAX_TEXT)
    throw appError("bad_request", { param: "question", message: `The question must be 1–${MAX_TEXT} characters.` });
  const expectAny = q.expectAny.map((e) => e.trim()).filter(Boolean);
  if (q.kind === "answer" && expectAny.length === 0)
    throw appError("bad_request", {
      param: "expect_any",
      message: "Give at least one piece of text a right answer contains, or mark it “should refuse”.",
    });
  if (expectAny.some((e) => e.length > 500))
    throw appError("bad_request", { param: "expect_any", message: "Each expected text is at most 500 characters." });
  return { question, history: q.history.slice(-12), kind: q.kind, expectAny: q.kind === "refuse" ? [] : expectAny.slice(0, 20) };
}

/** What changed for one question since the run before: now passing, now failing, or new. */
export function changes(latest: TestResult[], previous: TestResult[] | null) {
  const before = new Map((previous ?? []).map((r) => [r.testQuestionId, r.passed]));
  return latest.map((r) => {
    const was = before.get(r.testQuestionId);
    return {
      ...r,
      change:
        was === undefined ? ("new" as const) : was === r.passed ? ("same" as const) : r.passed ? ("fixed" as const) : ("broke" as const),
    };
  });
}

/**
 * The owner's test questions: kept per deployment, run through the dry pipeline after every training (the run is
 * keyed by the training's time, so with several nodes it runs once) or on demand, and judged (owner-checks.ts).
 */
export function createTestQuestionsService(deps: {
  tests: TestQuestionsStore;
  deployments: DeploymentsStore;
  accounts: AccountsStore;
  dry: ChatService;
  log: Logger;
}) {
  const running = new Set<string>();

  async function run(d: Deployment, trigger: TestRun["trigger"], runKey: string): Promise<TestRun | null> {
    const questions = await deps.tests.list(d.id);
    if (!questions.length) return null;
    const started = await deps.tests.startRun(d.id, runKey, trigger, questions.length);
    if (!started) return null;
    const account = await deps.accounts.findById(d.accountId);
    const results: TestResult[] = [];
    let error: string | null = null;
    try {
      for (const q of questions) {
        if (!account) throw new Error("account missing");
        const o = await ask(deps.dry, { deployment: d, account, question: q.question, history: q.history });
        const v = judgeCase(q, o);
        results.push({
          runId: started.id,
          testQuestionId: q.id,
          question: q.question,
          kind: q.kind,
          verdict: v.verdict,
          passed: v.passed,
          answer: o.error ? `(${o.error})` : o.answer,
          searchQuery: o.searchQuery,
          sources: o.sources,
          citations: o.citations,
        });
      }
    } catch (e) {
      error = String((e as Error).message ?? e);
      deps.log.error("test questions run failed", { deployment: d.id, error });
    }
    await deps.tests.finishRun(started.id, results, error);
    return (await deps.tests.runs(d.id, 1))[0] ?? null;
  }

  return {
    list: (deploymentId: string) => deps.tests.list(deploymentId),
    async create(deploymentId: string, q: QuestionInput) {
      if ((await deps.tests.count(deploymentId)) >= MAX_TEST_QUESTIONS)
        throw appError("bad_request", { param: "question", message: `A deployment keeps at most ${MAX_TEST_QUESTIONS} test questions.` });
      return deps.tests.create({ deploymentId, ...checked(q) });
    },
    async update(deploymentId: string, id: number, q: QuestionInput) {
      const r = await deps.tests.update(deploymentId, id, checked(q));
      if (!r) throw appError("not_found", { param: "test_question_id", message: "No such test question." });
      return r;
    },
    async remove(deploymentId: string, id: number) {
      if (!(await deps.tests.remove(deploymentId, id)))
        throw appError("not_found", { param: "test_question_id", message: "No such test question." });
    },
    /** Runs now (the console's "Run now"); waits for the result. */
    async runNow(d: Deployment): Promise<TestRun> {
      if (d.kind !== "docs") throw appError("bad_request", { message: "Test questions run on document deployments." });
      const r = await run(d, "manual", `manual:${d.id}:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`);
      if (!r) throw appError("bad_request", { param: "questions", message: "Add a test question first." });
      return r;
    },
    /** The latest runs with the newest one's results and what changed since the one before. */
    async summary(deploymentId: string) {
      const runs = await deps.tests.runs(deploymentId, 10);
      const done = runs.filter((r) => r.status !== "running");
      const latest = done[0] ?? null;
      const previous = done[1] ?? null;
      const results = latest ? await deps.tests.results(deploymentId, latest.id) : [];
      const prev = previous ? await deps.tests.results(deploymentId, previous.id) : null;
      return { runs, running: runs.some((r) => r.status === "running"), latest, previous, results: changes(results, prev) };
    },
    /**
     * The scheduler's tick: every completed training of a deployment with test questions gets one run. Returns the
     * runs started (tests wait on it).
     */
    async tick(): Promise<TestRun[]> {
      await deps.tests.failStale(Date.now() - 30 * 60_000);
      const out: TestRun[] = [];
      for (const d of await deps.deployments.list()) {
        if (d.kind !== "docs" || d.trainingStatus !== "completed" || d.trainedAt === null || running.has(d.id)) continue;
        running.add(d.id);
        try {
          const r = await run(d, "training", `training:${d.id}:${d.trainedAt}`);
          if (r) out.push(r);
        } finally {
          running.delete(d.id);
        }
      }
      return out;
    },
  };
}

export type TestQuestionsService = ReturnType<typeof createTestQuestionsService>;

import type { SQL } from "bun";
import type { NewTestQuestion, TestQuestionsStore, TestResult, TestRun } from "../../contract/owner-insight.contract.ts";
import { toResult, toRun, toTestQuestion } from "../../contract/owner-insight.contract.ts";
import { first, type Raw, text } from "./values.ts";

const json = (v: unknown) => text(JSON.stringify(v));

/** The PostgreSQL twin of sqlite/repos/test-questions.sqlite.ts. */
export function createPgTestQuestionsRepo(sql: SQL): TestQuestionsStore {
  return {
    async list(deploymentId: string) {
      return ((await sql`SELECT * FROM test_questions WHERE deployment_id = ${deploymentId} ORDER BY id`) as Raw[]).map(toTestQuestion);
    },
    async count(deploymentId: string) {
      return Number((await first(sql`SELECT COUNT(*) AS n FROM test_questions WHERE deployment_id = ${deploymentId}`))?.n ?? 0);
    },
    async create(q: NewTestQuestion) {
      const at = Date.now();
      const r = await first(sql`INSERT INTO test_questions (deployment_id, question, history, kind, expect_any, created_at, updated_at)
        VALUES (${q.deploymentId}, ${text(q.question)}, ${json(q.history)}, ${q.kind}, ${json(q.expectAny)}, ${at}::bigint, ${at}::bigint) RETURNING *`);
      return toTestQuestion(r as Raw);
    },
    async update(deploymentId: string, id: number, q: Omit<NewTestQuestion, "deploymentId">) {
      const r = await first(sql`UPDATE test_questions SET question = ${text(q.question)}, history = ${json(q.history)}, kind = ${q.kind},
          expect_any = ${json(q.expectAny)}, updated_at = ${Date.now()}::bigint
        WHERE id = ${id}::bigint AND deployment_id = ${deploymentId} RETURNING *`);
      return r ? toTestQuestion(r) : null;
    },
    async remove(deploymentId: string, id: number) {
      const r = await sql`DELETE FROM test_questions WHERE id = ${id}::bigint AND deployment_id = ${deploymentId}`;
      return Number((r as { count?: number }).count ?? 0) > 0;
    },
    async startRun(deploymentId: string, runKey: string, trigger: TestRun["trigger"], total: number) {
      const r = await first(sql`INSERT INTO test_runs (deployment_id, run_key, trigger, total, started_at)
        VALUES (${deploymentId}, ${runKey}, ${trigger}, ${total}, ${Date.now()}::bigint) ON CONFLICT (run_key) DO NOTHING RETURNING *`);
      return r ? toRun(r) : null;
    },
    async finishRun(runId: number, results: TestResult[], error: string | null = null) {
      await sql.begin(async (tx) => {
        for (const x of results)
          await tx`INSERT INTO test_results (run_id, test_question_id, question, kind, verdict, passed, answer, search_query, sources, citations)
            VALUES (${runId}::bigint, ${x.testQuestionId}::bigint, ${text(x.question)}, ${x.kind}, ${x.verdict}, ${x.passed ? 1 : 0},
              ${text(x.answer)}, ${text(x.searchQuery)}, ${json(x.sources)}, ${json(x.citations)})`;
        await tx`UPDATE test_runs SET status = ${error ? "failed" : "done"}, passed = ${results.filter((x) => x.passed).length},
            total = ${results.length}, error = ${error}, finished_at = ${Date.now()}::bigint WHERE id = ${runId}::bigint`;
      });
    },
    async runs(deploymentId: string, limit: number) {
      return ((await sql`SELECT * FROM test_runs WHERE deployment_id = ${deploymentId} ORDER BY id DESC LIMIT ${limit}`) as Raw[]).map(
        toRun,
      );
    },
    async results(deploymentId: string, runId: number) {
      return (
        (await sql`SELECT r.* FROM test_results r JOIN test_runs u ON u.id = r.run_id WHERE r.run_id = ${runId}::bigint
          AND u.deployment_id = ${deploymentId} ORDER BY r.test_question_id`) as Raw[]
      ).map(toResult);
    },
    async failStale(beforeMs: number) {
      const r = await sql`UPDATE test_runs SET status = 'failed', error = 'interrupted', finished_at = ${Date.now()}::bigint
        WHERE status = 'running' AND started_at < ${beforeMs}::bigint`;
      return Number((r as { count?: number }).count ?? 0);
    },
  };
}

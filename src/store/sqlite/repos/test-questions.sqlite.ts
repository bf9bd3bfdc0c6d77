import type { NewTestQuestion, TestQuestionsStore, TestResult, TestRun } from "../../contract/owner-insight.contract.ts";
import { toResult, toRun, toTestQuestion } from "../../contract/owner-insight.contract.ts";
import type { Db } from "../db.ts";

/** A deployment's test questions, their runs and each run's results; every lookup takes the deployment id. */
export function createSqliteTestQuestionsRepo(db: Db): TestQuestionsStore {
  return {
    async list(deploymentId: string) {
      return db
        .query<Record<string, unknown>, [string]>("SELECT * FROM test_questions WHERE deployment_id = ? ORDER BY id")
        .all(deploymentId)
        .map(toTestQuestion);
    },
    async count(deploymentId: string) {
      return (
        db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM test_questions WHERE deployment_id = ?").get(deploymentId)?.n ?? 0
      );
    },
    async create(q: NewTestQuestion) {
      const at = Date.now();
      const r = db
        .query<Record<string, unknown>, (string | number)[]>(
          "INSERT INTO test_questions (deployment_id, question, history, kind, expect_any, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .get(q.deploymentId, q.question, JSON.stringify(q.history), q.kind, JSON.stringify(q.expectAny), at, at);
      return toTestQuestion(r as Record<string, unknown>);
    },
    async update(deploymentId: string, id: number, q: Omit<NewTestQuestion, "deploymentId">) {
      const r = db
        .query<Record<string, unknown>, (string | number)[]>(
          "UPDATE test_questions SET question = ?, history = ?, kind = ?, expect_any = ?, updated_at = ? WHERE id = ? AND deployment_id = ? RETURNING *",
        )
        .get(q.question, JSON.stringify(q.history), q.kind, JSON.stringify(q.expectAny), Date.now(), id, deploymentId);
      return r ? toTestQuestion(r) : null;
    },
    async remove(deploymentId: string, id: number) {
      return db.run("DELETE FROM test_questions WHERE id = ? AND deployment_id = ?", [id, deploymentId]).changes > 0;
    },
    /** Starts a run unless one with this key exists (another node took it): null then. */
    async startRun(deploymentId: string, runKey: string, trigger: TestRun["trigger"], total: number) {
      const r = db
        .query<Record<string, unknown>, (string | number)[]>(
          `INSERT INTO test_runs (deployment_id, run_key, trigger, total, started_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (run_key) DO NOTHING RETURNING *`,
        )
        .get(deploymentId, runKey, trigger, total, Date.now());
      return r ? toRun(r) : null;
    },
    /** The run's results and its end, in one transaction. */
    async finishRun(runId: number, results: TestResult[], error: string | null = null) {
      const insert = db.query(
        `INSERT INTO test_results (run_id, test_question_id, question, kind, verdict, passed, answer, search_query, sources, citations)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      db.transaction(() => {
        for (const x of results)
          insert.run(
            runId,
            x.testQuestionId,
            x.question,
            x.kind,
            x.verdict,
            x.passed ? 1 : 0,
            x.answer,
            x.searchQuery,
            JSON.stringify(x.sources),
            JSON.stringify(x.citations),
          );
        db.run("UPDATE test_runs SET status = ?, passed = ?, total = ?, error = ?, finished_at = ? WHERE id = ?", [
          error ? "failed" : "done",
          results.filter((x) => x.passed).length,
          results.length,
          error,
          Date.now(),
          runId,
        ]);
      }).immediate();
    },
    async runs(deploymentId: string, limit: number) {
      return db
        .query<Record<string, unknown>, [string, number]>("SELECT * FROM test_runs WHERE deployment_id = ? ORDER BY id DESC LIMIT ?")
        .all(deploymentId, limit)
        .map(toRun);
    },
    async results(deploymentId: string, runId: number) {
      return db
        .query<Record<string, unknown>, [number, string]>(
          `SELECT r.* FROM test_results r JOIN test_runs u ON u.id = r.run_id WHERE r.run_id = ? AND u.deployment_id = ?
            ORDER BY r.test_question_id`,
        )
        .all(runId, deploymentId)
        .map(toResult);
    },
    /** Runs still "running" that started before `beforeMs` (their node died): marked failed so a new one can start. */
    async failStale(beforeMs: number) {
      return db.run(
        "UPDATE test_runs SET status = 'failed', error = 'interrupted', finished_at = ? WHERE status = 'running' AND started_at < ?",
        [Date.now(), beforeMs],
      ).changes;
    },
  };
}

import { appError } from "../errors/index.ts";
import type { Account, Deployment } from "../store/contract/index.ts";
import { parseCases } from "./eval-cases.ts";
import type { EvalReport } from "./eval-report.ts";
import { type AnswerPipeline, runEval } from "./run-eval.ts";

/**
 * Runs an owner's evaluation cases against one deployment through the answering pipeline. Evaluation turns are
 * neither logged nor charged (the pipeline it is given records nothing), but they pass the same gates as a
 * visitor's question: a deployment that is not trained or an account out of credit shows as errors per case.
 */
export function createEvalService(deps: {
  chat: AnswerPipeline;
  deployment: (id: string, accountId?: number) => Promise<Deployment>;
  account: (id: number) => Promise<Account | null>;
}) {
  return {
    async run(
      deploymentId: string,
      rawCases: unknown,
      opts: { accountId?: number; signal?: AbortSignal; onCase?: (done: number, total: number) => void } = {},
    ): Promise<EvalReport> {
      const cases = parseCases(rawCases);
      const deployment = await deps.deployment(deploymentId, opts.accountId);
      const account = await deps.account(deployment.accountId);
      if (!account) throw appError("not_found", { message: "The deployment's account does not exist.", param: "deployment" });
      return runEval({ chat: deps.chat, target: { deployment, account }, cases, signal: opts.signal, onCase: opts.onCase });
    },
  };
}

export type EvalService = ReturnType<typeof createEvalService>;

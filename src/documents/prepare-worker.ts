import { runParseWorker } from "../ingest/parse-worker.ts";
import { analyzeDrafts } from "./prepared-analysis.ts";

/**
 * The server's parse worker: ingest's (parse, chunk) with the analyzer added, so a small document's chunk terms
 * are made in the worker process, beside its parsing, not on the server's thread as it is trained. Started by
 * prepareWorkerCommand() (prepared-analysis.ts: the server never loads this file, nor the parsers it brings).
 */
export const runPrepareWorker = (): Promise<never> => runParseWorker({ analyze: analyzeDrafts });

if (import.meta.main) await runPrepareWorker();

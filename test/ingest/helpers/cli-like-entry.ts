/** Stands in for the CLI: the hidden worker command dispatches to runParseWorker, after some stray output. */
import { PARSE_WORKER_COMMAND, runParseWorker } from "../../../src/ingest/parse-worker.ts";

if (process.argv[2] === PARSE_WORKER_COMMAND) {
  // libraries sometimes print to stdout on load; the reply marker must survive that
  console.log("banner printed by some library");
  await runParseWorker();
}

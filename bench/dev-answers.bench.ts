/**
 * Answers on real documents: the 13 documents of ../shared/data/dev/answers loaded into a fresh data dir through the
 * real CLI (`docchat documents add --wait`), then `docchat eval` over its 90 cases — the default install: keyword
 * retrieval, the grounding gate, extractive answers, no model. Writes the per-style table to BENCHMARKS.md.
 *
 *   bun bench/dev-answers.bench.ts [--no-write]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type EvalReport, reportTable } from "../src/eval/eval-report.ts";
import { replaceSection } from "./lib/benchmarks-md.ts";
import { describeMachine, loadAverage } from "./lib/machine-info.ts";

const { values: args } = parseArgs({ options: { "no-write": { type: "boolean", default: false } } });
const ROOT = join(import.meta.dir, "..");
const DEV = join(ROOT, "../shared/data/dev/answers");
const DOCS = join(ROOT, "../shared/data/docs");
const FILES = [
  "pdf/text/debian-bash-doc-bash.pdf",
  "pdf/text/federal-register-2020-17221.pdf",
  "pdf/text/GeoTopo-komprimiert.pdf",
  "pdf/text/scotus-transcript-p1.pdf",
  "pdf/tables/nics-background-checks-2015-11.pdf",
  "pdf/tables/WARN-Report-for-7-1-2015-to-03-25-2016.pdf",
  "pdf/tables/senate-expenditures.pdf",
  "txt/gutenberg-11-alice.txt",
  "txt/gutenberg-1661-sherlock-holmes.txt",
  "csv/clevercsv/imdb.csv",
  "csv/csvkit/FY09_EDU_Recipients_by_State.csv",
  "docx/poi/60329.docx",
  "docx/poi/61787.docx",
];

async function cli(argv: string[]): Promise<string> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), ...argv], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`docchat ${argv.slice(0, 2).join(" ")} exited ${code}: ${err}`);
  return out;
}

const data = mkdtempSync(join(tmpdir(), "docchat-dev-answers-"));
try {
  const d = ["--data", data, "--json"];
  await cli(["account", "create", "--email", "dev@example.com", "--tokens", "100000000", ...d]);
  const { id } = JSON.parse(await cli(["deployment", "create", "--account", "dev@example.com", "--name", "Dev", "--publish", ...d]));
  const started = performance.now();
  await cli(["documents", "add", id, ...FILES.map((f) => join(DOCS, f)), "--wait", ...d]);
  const loadS = (performance.now() - started) / 1000;
  const report = JSON.parse(await cli(["eval", id, join(DEV, "cases.json"), ...d])) as EvalReport;
  const table = reportTable(report);
  const body = `Command: \`bun bench/dev-answers.bench.ts\`
Machine: ${describeMachine()}; load average ${loadAverage().toFixed(1)}.

The 13 documents of \`shared/data/dev/answers\` added to a fresh data dir with \`docchat documents add --wait\` (${loadS.toFixed(
    1,
  )} s), then \`docchat eval\` over its 90 cases (75 answerable, 15 to refuse) on the default install: keyword retrieval,
the grounding gate and extractive answers, no model. *correct*: the answer holds an expected string; *wrong*: a confident
answer that does not; *weak*: an answer that says it is only the closest passage and does not hold it; shares of answer
cases. *context recall*: the expected string is in the passages a model would be given. The dev set is for tuning:
other documents and questions are used to check.

${table}`;
  console.log(`\n${body}`);
  if (!args["no-write"]) await replaceSection(join(ROOT, "BENCHMARKS.md"), "Answers on real documents (dev set, docchat eval)", body);
} finally {
  rmSync(data, { recursive: true, force: true });
}

// Usage: bun scripts/crash-test.ts [--cycles 20] [--embedder none|auto]
// kill -9s the real server while it ingests, restarts it, and checks the index invariants each cycle.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runCrashCycles } from "./lib/crash-cycles.ts";

const { values } = parseArgs({ options: { cycles: { type: "string", default: "20" }, embedder: { type: "string", default: "none" } } });
const dataDir = mkdtempSync(join(tmpdir(), "docchat-crash-"));
const { reports, finalProblems } = await runCrashCycles({
  dataDir,
  cycles: Number(values.cycles),
  maxKillMs: 1500,
  env: { DOCCHAT_EMBEDDER: values.embedder as string },
  log: (r) =>
    console.log(
      `cycle ${r.cycle}: killed after ${r.killedAfterMs} ms, ${r.acknowledged} acknowledged so far, ${r.problems.length ? r.problems.join("; ") : "ok"}`,
    ),
});
const bad = reports.filter((r) => r.problems.length > 0).length + (finalProblems.length > 0 ? 1 : 0);
console.log(
  finalProblems.length
    ? `final: ${finalProblems.join("; ")}`
    : "final: every acknowledged document Completed or Failed with a reason; invariants hold",
);
console.log(`${reports.length} cycles, ${bad} with problems (data dir ${dataDir})`);
process.exit(bad === 0 ? 0 : 1);

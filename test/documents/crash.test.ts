import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCrashCycles } from "../../scripts/lib/crash-cycles.ts";
import { tempDir } from "../helpers/server.ts";

const dataDir = tempDir("docchat-crash-");
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("kill -9 during ingestion loses no acknowledged document and never leaves a half-indexed one", async () => {
  // each cycle is killed after its first acknowledgement (plus 30–730 ms), while the other pushes are in flight,
  // so a busy machine that acknowledges slowly still tests an acknowledged document every cycle
  const { reports, finalProblems } = await runCrashCycles({ dataDir, cycles: 3, docsPerCycle: 6, killAfterFirstAck: true });
  expect(reports).toHaveLength(3);
  for (const r of reports) expect(r.problems).toEqual([]);
  expect(finalProblems).toEqual([]);
  // acknowledged counts add up over the cycles: each cycle acknowledged at least one
  for (const [i, r] of reports.entries()) expect(r.acknowledged).toBeGreaterThanOrEqual(i + 1);
}, 600_000);

import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCrashCycles } from "../../scripts/lib/crash-cycles.ts";
import { tempDir } from "../helpers/server.ts";

const dataDir = tempDir("docchat-crash-");
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("kill -9 during ingestion loses no acknowledged document and never leaves a half-indexed one", async () => {
  const { reports, finalProblems } = await runCrashCycles({ dataDir, cycles: 3, docsPerCycle: 4 });
  expect(reports).toHaveLength(3);
  for (const r of reports) expect(r.problems).toEqual([]);
  expect(finalProblems).toEqual([]);
  expect(reports.at(-1)?.acknowledged ?? 0).toBeGreaterThan(0);
}, 120_000);

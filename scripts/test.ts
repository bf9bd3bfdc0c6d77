/**
 * `bun run test`: makes sure everything the tests need is on the machine, then runs every test (`bun test`,
 * with any extra arguments passed through). Nothing is skipped: the browser tests need Chromium at
 * /usr/bin/chromium and the README test runs the README's curl commands, so missing tools are installed here
 * with apt-get (as root), and the PostgreSQL store tests need PostgreSQL 15 with pgvector (scripts/ensure-postgres.ts:
 * Debian packages plus pgvector built from ../shared/vendor); otherwise this stops with a clear message and exit code 1 rather than letting a test
 * quietly not run.
 */
import { ensureTools, type Tool } from "./lib/ensure-tools.ts";

/** Per test and hook, unless the command line gives another --timeout. */
export const TEST_TIMEOUT_MS = 120_000;

export const TEST_TOOLS: Tool[] = [
  { path: "/usr/bin/chromium", pkg: "chromium", usedBy: "the browser tests (test/e2e)" },
  { path: "/usr/bin/curl", pkg: "curl", usedBy: "the README test (test/readme.test.ts)" },
];

if (import.meta.main) {
  const { ensurePostgres } = await import("./ensure-postgres.ts");
  const problem = ensureTools(TEST_TOOLS) ?? ensurePostgres();
  if (problem) {
    process.stderr.write(`\nbun run test: ${problem}\n`);
    process.exit(1);
  }
  // A timeout is for a test that hangs, not a speed limit: on a shared, busy machine bun's default of 5 s failed
  // tests that were merely waiting for the CPU. (bunfig.toml's [test] timeout is not read by bun 1.4.)
  const args = process.argv.slice(2);
  const timeout = args.some((a) => a.startsWith("--timeout")) ? [] : [`--timeout=${TEST_TIMEOUT_MS}`];
  const tests = Bun.spawn([process.execPath, "test", ...timeout, ...args], { stdout: "inherit", stderr: "inherit", stdin: "inherit" });
  process.exit(await tests.exited);
}

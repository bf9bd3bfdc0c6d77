/**
 * `bun run test`: makes sure everything the tests need is on the machine, then runs every test (`bun test`,
 * with any extra arguments passed through). Nothing is skipped: the browser tests need Chromium at
 * /usr/bin/chromium and the README test runs the README's curl commands, so missing tools are installed here
 * with apt-get (as root), and the PostgreSQL store tests need PostgreSQL 15 with pgvector (scripts/ensure-postgres.ts:
 * Debian packages plus pgvector built from ../shared/vendor); otherwise this stops with a clear message and exit code 1 rather than letting a test
 * quietly not run.
 */
import { existsSync } from "node:fs";

export interface Tool {
  path: string;
  /** the Debian package that provides it */
  pkg: string;
  usedBy: string;
}

export const TEST_TOOLS: Tool[] = [
  { path: "/usr/bin/chromium", pkg: "chromium", usedBy: "the browser tests (test/e2e)" },
  { path: "/usr/bin/curl", pkg: "curl", usedBy: "the README test (test/readme.test.ts)" },
];

function run(cmd: string[]): boolean {
  process.stderr.write(`$ ${cmd.join(" ")}\n`);
  return (
    Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).exitCode === 0
  );
}

/** Returns null when every tool is (now) there, else what the operator must do. */
export function ensureTools(
  tools: Tool[],
  opts: { root?: boolean; aptGet?: string | null; install?: (cmd: string[]) => boolean } = {},
): string | null {
  const missing = tools.filter((t) => !existsSync(t.path));
  if (missing.length === 0) return null;
  const what = missing.map((t) => `${t.path} (package ${t.pkg}, for ${t.usedBy})`).join(", ");
  const pkgs = missing.map((t) => t.pkg);
  const root = opts.root ?? process.getuid?.() === 0;
  const aptGet = opts.aptGet === undefined ? Bun.which("apt-get") : opts.aptGet;
  const install = opts.install ?? run;
  if (!root)
    return `missing ${what}, and this user cannot install it. Run: sudo apt-get install -y ${pkgs.join(" ")} — then bun run test again.`;
  if (!aptGet) return `missing ${what}, and apt-get is not available. Install it, then run bun run test again.`;
  process.stderr.write(`Installing what the tests need: ${what}\n`);
  if (!install(["apt-get", "update", "-qq"]) || !install(["apt-get", "install", "-y", "-qq", "--no-install-recommends", ...pkgs])) {
    return `apt-get could not install ${pkgs.join(" ")}. Install by hand (apt-get install ${pkgs.join(" ")}), then run bun run test again.`;
  }
  const still = missing.filter((t) => !existsSync(t.path));
  return still.length
    ? `apt-get ran but ${still.map((t) => t.path).join(", ")} is still missing. Install it by hand, then run bun run test again.`
    : null;
}

if (import.meta.main) {
  // ensure-postgres imports ensureTools from here; loaded lazily so this module stays importable on its own
  const { ensurePostgres } = await import("./ensure-postgres.ts");
  const problem = ensureTools(TEST_TOOLS) ?? ensurePostgres();
  if (problem) {
    process.stderr.write(`\nbun run test: ${problem}\n`);
    process.exit(1);
  }
  const tests = Bun.spawn([process.execPath, "test", ...process.argv.slice(2)], { stdout: "inherit", stderr: "inherit", stdin: "inherit" });
  process.exit(await tests.exited);
}

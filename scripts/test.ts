/**
 * `bun run test`: makes sure everything the tests need is on the machine, then runs every test (`bun test`,
 * with any extra arguments passed through). Nothing is skipped: the browser tests need Chromium at
 * /usr/bin/chromium, so it is installed here with apt-get when missing (as root); otherwise this stops with a
 * clear message and exit code 1 rather than letting a test quietly not run.
 */
import { existsSync } from "node:fs";

export const CHROMIUM = "/usr/bin/chromium";

function run(cmd: string[]): boolean {
  process.stderr.write(`$ ${cmd.join(" ")}\n`);
  return (
    Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).exitCode === 0
  );
}

/** Returns null when Chromium is (now) there, else what the operator must do. */
export function ensureChromium(
  opts: { path?: string; root?: boolean; aptGet?: string | null; install?: (cmd: string[]) => boolean } = {},
): string | null {
  const path = opts.path ?? CHROMIUM;
  if (existsSync(path)) return null;
  const root = opts.root ?? process.getuid?.() === 0;
  const aptGet = opts.aptGet === undefined ? Bun.which("apt-get") : opts.aptGet;
  const install = opts.install ?? run;
  if (!root)
    return `Chromium (${path}) is needed by the browser tests and this user cannot install it. Run: sudo apt-get install -y chromium — then bun run test again.`;
  if (!aptGet)
    return `Chromium (${path}) is needed by the browser tests and apt-get is not available. Install Chromium there, then run bun run test again.`;
  process.stderr.write(`Chromium (${path}) is needed by the browser tests (test/e2e); installing it with apt-get…\n`);
  if (
    !install(["apt-get", "update", "-qq"]) ||
    !install(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"]) ||
    !existsSync(path)
  ) {
    return `apt-get could not install Chromium at ${path}. Install it by hand (apt-get install chromium), then run bun run test again.`;
  }
  return null;
}

if (import.meta.main) {
  const problem = ensureChromium();
  if (problem) {
    process.stderr.write(`\nbun run test: ${problem}\n`);
    process.exit(1);
  }
  const tests = Bun.spawn([process.execPath, "test", ...process.argv.slice(2)], { stdout: "inherit", stderr: "inherit", stdin: "inherit" });
  process.exit(await tests.exited);
}

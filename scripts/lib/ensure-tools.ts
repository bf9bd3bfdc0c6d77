/**
 * Makes sure tools the tests need are on the machine: installs missing Debian packages with apt-get when run as
 * root, else says what the operator must do. Used by `bun run test` (scripts/test.ts) and scripts/ensure-postgres.ts.
 */
import { existsSync } from "node:fs";

export interface Tool {
  path: string;
  /** the Debian package that provides it */
  pkg: string;
  usedBy: string;
}

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

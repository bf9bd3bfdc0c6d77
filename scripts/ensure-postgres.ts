/**
 * Makes sure this machine can start a throwaway PostgreSQL 15 cluster with pgvector, for the PostgreSQL tests,
 * benchmarks and CI: the server and its headers come from Debian (postgresql-15, postgresql-server-dev-15, via
 * apt-get as root, like scripts/test.ts does for Chromium); pgvector is not packaged in this Debian release, so
 * it is built from the vendored release source (../shared/vendor/pgvector-0.8.6.tar.gz) in a temp dir with
 * `make && make install` (about ten seconds) when `vector.control` is missing. Once everything is in place the
 * check is a handful of stat() calls.
 *
 *   bun scripts/ensure-postgres.ts     (exit 0 = ready, 1 = what to do is printed)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureTools, type Tool } from "./lib/ensure-tools.ts";

export const PG_MAJOR = 15;
export const PG_BIN = `/usr/lib/postgresql/${PG_MAJOR}/bin`;
const PG_CONFIG = join(PG_BIN, "pg_config");
export const PGVECTOR_TARBALL = join(import.meta.dir, "../../shared/vendor/pgvector-0.8.6.tar.gz");
/** The oldest pgvector whose iterative index scans (hnsw.iterative_scan) the PostgreSQL store relies on. */
const MIN_PGVECTOR = [0, 8, 0];

export const POSTGRES_TOOLS: Tool[] = [
  {
    path: join(PG_BIN, "postgres"),
    pkg: `postgresql-${PG_MAJOR}`,
    usedBy: "the PostgreSQL tests (test/store/*postgres*, test/store/contract/, test/e2e/scale-out)",
  },
  { path: join(PG_BIN, "initdb"), pkg: `postgresql-${PG_MAJOR}`, usedBy: "the throwaway test cluster (test/helpers/postgres.ts)" },
  { path: `/usr/include/postgresql/${PG_MAJOR}/server/postgres.h`, pkg: `postgresql-server-dev-${PG_MAJOR}`, usedBy: "building pgvector" },
  { path: PG_CONFIG, pkg: `postgresql-server-dev-${PG_MAJOR}`, usedBy: "building pgvector" },
  { path: "/usr/bin/make", pkg: "make", usedBy: "building pgvector" },
  { path: "/usr/bin/gcc", pkg: "gcc", usedBy: "building pgvector" },
  { path: "/usr/bin/tar", pkg: "tar", usedBy: "unpacking pgvector" },
];

/** Where PostgreSQL looks for extensions (`pg_config --sharedir`/extension), without running pg_config. */
export const EXTENSION_DIR = `/usr/share/postgresql/${PG_MAJOR}/extension`;
const LIB_DIR = `/usr/lib/postgresql/${PG_MAJOR}/lib`;

/** The installed pgvector version (default_version in vector.control), or null when it is not installed. */
export function installedPgvector(extensionDir = EXTENSION_DIR, libDir = LIB_DIR): string | null {
  const control = join(extensionDir, "vector.control");
  if (!existsSync(control) || !existsSync(join(libDir, "vector.so"))) return null;
  return /default_version\s*=\s*'([^']+)'/.exec(readFileSync(control, "utf8"))?.[1] ?? null;
}

export function versionAtLeast(version: string, min: number[]): boolean {
  const parts = version.split(".").map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < min.length; i++) {
    const a = parts[i] ?? 0;
    const b = min[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

function run(cmd: string[], cwd?: string): { ok: boolean; output: string } {
  const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  return { ok: r.exitCode === 0, output: `${r.stdout.toString()}${r.stderr.toString()}` };
}

/** Builds and installs pgvector from the vendored tarball in a temp build dir; returns null or the problem. */
export function buildPgvector(opts: { tarball?: string; root?: boolean } = {}): string | null {
  const tarball = opts.tarball ?? PGVECTOR_TARBALL;
  if (!existsSync(tarball)) return `pgvector is not installed and its source ${tarball} is missing.`;
  const root = opts.root ?? process.getuid?.() === 0;
  if (!root)
    return `pgvector is not installed and this user cannot install it. Run as root: bun scripts/ensure-postgres.ts — then try again.`;
  const dir = mkdtempSync(join(tmpdir(), "docchat-pgvector-"));
  try {
    process.stderr.write(`Building pgvector from ${tarball} (about ten seconds)\n`);
    const untar = run(["tar", "xzf", tarball, "-C", dir, "--strip-components=1"]);
    if (!untar.ok) return `could not unpack ${tarball}: ${untar.output.trim()}`;
    const env = [`PG_CONFIG=${PG_CONFIG}`];
    const make = run(["make", "-j2", ...env], dir);
    if (!make.ok) return `building pgvector failed:\n${make.output.slice(-2000)}`;
    const install = run(["make", "install", ...env], dir);
    if (!install.ok) return `installing pgvector failed:\n${install.output.slice(-2000)}`;
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Returns null when PostgreSQL 15 + pgvector ≥ 0.8 are (now) installed, else what the operator must do. */
export function ensurePostgres(): string | null {
  const tools = ensureTools(POSTGRES_TOOLS);
  if (tools) return tools;
  const version = installedPgvector();
  if (version && versionAtLeast(version, MIN_PGVECTOR)) return null;
  const built = buildPgvector();
  if (built) return built;
  const now = installedPgvector();
  return now && versionAtLeast(now, MIN_PGVECTOR)
    ? null
    : `pgvector ${now ?? "(none)"} is installed after the build, but ${MIN_PGVECTOR.join(".")} or newer is needed.`;
}

if (import.meta.main) {
  const problem = ensurePostgres();
  if (problem) {
    process.stderr.write(`ensure-postgres: ${problem}\n`);
    process.exit(1);
  }
  process.stderr.write(`PostgreSQL ${PG_MAJOR} with pgvector ${installedPgvector()} is ready.\n`);
}

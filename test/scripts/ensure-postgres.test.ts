import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPgvector, ensurePostgres, installedPgvector, POSTGRES_TOOLS, versionAtLeast } from "../../scripts/ensure-postgres.ts";

const dir = mkdtempSync(join(tmpdir(), "docchat-ensure-pg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("bun run test makes sure PostgreSQL 15 with pgvector is there", () => {
  test("the server, its headers and a compiler are among the tools it ensures", () => {
    expect([...new Set(POSTGRES_TOOLS.map((t) => t.pkg))]).toEqual(["postgresql-15", "postgresql-server-dev-15", "make", "gcc", "tar"]);
  });

  test("pgvector counts as installed only with both vector.control and vector.so, at the control file's version", () => {
    const ext = join(dir, "ext");
    const lib = join(dir, "lib");
    mkdirSync(ext);
    mkdirSync(lib);
    expect(installedPgvector(ext, lib)).toBeNull();
    writeFileSync(join(ext, "vector.control"), "comment = 'x'\ndefault_version = '0.7.4'\n");
    expect(installedPgvector(ext, lib)).toBeNull();
    writeFileSync(join(lib, "vector.so"), "");
    expect(installedPgvector(ext, lib)).toBe("0.7.4");
  });

  test("versions compare part by part, so 0.10 is newer than 0.8", () => {
    expect(versionAtLeast("0.8.6", [0, 8, 0])).toBe(true);
    expect(versionAtLeast("0.10.0", [0, 8, 0])).toBe(true);
    expect(versionAtLeast("0.7.4", [0, 8, 0])).toBe(false);
    expect(versionAtLeast("1.0", [0, 8, 0])).toBe(true);
  });

  test("a build without its source or without root stops with what to do", () => {
    expect(buildPgvector({ tarball: join(dir, "missing.tar.gz"), root: true })).toContain("missing");
    expect(buildPgvector({ root: false })).toContain("Run as root: bun scripts/ensure-postgres.ts");
  });

  test("on this machine it leaves PostgreSQL 15 with pgvector 0.8 or newer ready", () => {
    expect(ensurePostgres()).toBeNull();
    expect(versionAtLeast(installedPgvector() ?? "0", [0, 8, 0])).toBe(true);
  });
});

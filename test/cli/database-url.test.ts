import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCliProcess, tempDir } from "../helpers/server.ts";

describe("DOCCHAT_DATABASE_URL / --database", () => {
  test("a PostgreSQL server that can't be reached stops a command with its address and code, never the password", async () => {
    const data = tempDir();
    try {
      for (const [args, env] of [
        [["deployment", "list", "--data", data], { DOCCHAT_DATABASE_URL: "postgres://owner:s3cret-pw@127.0.0.1:1/docchat" }],
        [["deployment", "list", "--data", data, "--database", "postgres://owner:s3cret-pw@127.0.0.1:1/docchat"], {}],
      ] as [string[], Record<string, string>][]) {
        const r = await runCliProcess(args, env);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain("PostgreSQL at 127.0.0.1:1/docchat");
        expect(r.stderr).toContain("ERR_POSTGRES_CONNECTION_REFUSED");
        expect(`${r.stdout}${r.stderr}`).not.toContain("s3cret-pw");
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  test("a URL that is not postgres:// is refused as a setting before anything starts", async () => {
    const r = await runCliProcess(["deployment", "list"], { DOCCHAT_DATABASE_URL: "mysql://u:p@db/x" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("DOCCHAT_DATABASE_URL");
    expect(r.stderr).toContain("postgres://");
  });
});

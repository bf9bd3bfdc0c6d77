import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../../src/store/sqlite/migrate.ts";
import { migrations } from "../../src/store/sqlite/migrations/index.ts";
import { extractVecExtension } from "../../src/store/sqlite/vec-extension.ts";
import { tempDir } from "../helpers/server.ts";

const dir = tempDir("docchat-migrations-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function freshDb(): Promise<Database> {
  const db = new Database(join(dir, `m${++n}.db`), { create: true, strict: true });
  db.run("PRAGMA foreign_keys = ON");
  db.loadExtension(await extractVecExtension(dir));
  return db;
}

/** Everything SQLite knows about the schema, in a stable order (the data in schema_migrations is left out). */
function schemaOf(db: Database): string {
  const rows = db
    .query<{ type: string; name: string; tbl_name: string; sql: string | null }, []>(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all();
  return rows.map((r) => `-- ${r.type} ${r.name} (on ${r.tbl_name})\n${r.sql ?? "(no sql)"}`).join("\n\n");
}

describe("migration registry", () => {
  test("versions are numbered 1, 2, 3, … without gaps", () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    expect(new Set(migrations.map((m) => m.name)).size).toBe(migrations.length);
  });

  test("every prefix of the list, then the rest, ends in the same schema as all at once", async () => {
    const all = await freshDb();
    expect(migrate(all)).toEqual(migrations.map((m) => m.version));
    const expected = schemaOf(all);
    all.close();
    for (let k = 0; k <= migrations.length; k++) {
      const db = await freshDb();
      expect(migrate(db, migrations.slice(0, k))).toEqual(migrations.slice(0, k).map((m) => m.version));
      expect(migrate(db)).toEqual(migrations.slice(k).map((m) => m.version));
      expect(schemaOf(db)).toBe(expected);
      // Applying again is a no-op.
      expect(migrate(db)).toEqual([]);
      db.close();
    }
    // 16 fresh databases migrated twice: seconds on a busy machine, not a time limit
  }, 60_000);

  test("the final schema matches the committed snapshot (update with `bun test -u` when adding a migration)", async () => {
    const db = await freshDb();
    migrate(db);
    expect(schemaOf(db)).toMatchSnapshot();
    db.close();
  });
});

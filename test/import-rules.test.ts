import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { checkImports, importsOf, repositoryFiles } from "./helpers/import-rules.ts";

const ROOT = join(import.meta.dir, "..");

describe("the import directions of the architecture guide", () => {
  test("src/ and scripts/ keep them: no arrow runs back up, no circle, routes go through services", () => {
    expect(checkImports(repositoryFiles(ROOT, ["src", "scripts"]))).toEqual([]);
  });

  // A house with the mistakes this check exists for, so its failures are shown to work (not only its silence).
  const house = (extra: Record<string, string>) =>
    new Map(
      Object.entries({
        "src/server/routes/chat.routes.ts":
          'import { answer } from "../../chat/chat.service.ts";\nimport type { Deployment } from "../../store/contract/index.ts";',
        "src/chat/chat.service.ts": 'import { retrieve } from "../rag/retrieve.ts";\nexport const answer = 1;',
        "src/rag/retrieve.ts": 'import type { LlmBackend } from "../llm/backend.ts";\nexport const retrieve = 1;',
        "src/llm/backend.ts": "export interface LlmBackend {}",
        "src/store/contract/index.ts": "export interface Deployment {}",
        "src/store/sqlite/db.ts": 'import { Database } from "bun:sqlite";',
        "src/store/postgres/pg-store.ts": 'import type { Deployment } from "../contract/index.ts";',
        ...extra,
      }),
    );

  test("a house without mistakes passes", () => {
    expect(checkImports(house({}))).toEqual([]);
  });

  test("an import that runs back up fails: store → server, llm → rag", () => {
    expect(
      checkImports(
        house({
          "src/store/sqlite/limits.ts": 'import { createRateLimiter } from "../../server/rate-limit.ts";',
          "src/server/rate-limit.ts": "export const createRateLimiter = 1;",
        }),
      ),
    ).toEqual(["src/store/sqlite/limits.ts → src/server/rate-limit.ts: runs back up the house"]);
    expect(checkImports(house({ "src/llm/backend.ts": 'import { retrieve } from "../rag/retrieve.ts";' }))).toEqual([
      "src/llm/backend.ts → src/rag/retrieve.ts: runs back up the house",
      "circle: src/llm/backend.ts → src/rag/retrieve.ts",
      "circle between parts: src/llm → src/rag",
    ]);
  });

  test("a circle of two files fails, even of type-only imports", () => {
    expect(
      checkImports(
        house({
          "src/ingest/types.ts": 'import type { OcrOptions } from "./protocol.ts";\nexport type Kind = "pdf";',
          "src/ingest/protocol.ts": 'import type { Kind } from "./types.ts";\nexport interface OcrOptions {}',
        }),
      ),
    ).toEqual(["circle: src/ingest/protocol.ts → src/ingest/types.ts"]);
  });

  test("a feature or a route that reaches a driver, and a route that reaches past its services, fail", () => {
    expect(
      checkImports(
        house({
          "src/chat/chat.service.ts": 'import { createSqliteStore } from "../store/sqlite/db.ts";',
          "src/server/routes/chat.routes.ts": "const logs = await services.repos.chatLogs.thread(id);",
        }),
      ),
    ).toEqual([
      "src/chat/chat.service.ts → src/store/sqlite/db.ts: outside store/, only app.ts and cli/ pick a driver: import store/contract/",
      "src/server/routes/chat.routes.ts: routes call services, never services.repos",
    ]);
  });

  test("one driver importing the other, SQLite outside store/ and the environment outside config/ fail", () => {
    expect(
      checkImports(
        house({
          "src/store/postgres/pg-store.ts": 'import { openDatabase } from "../sqlite/db.ts";',
          "src/rag/retrieve.ts": 'import { Database } from "bun:sqlite";\nconst url = process.env.DOCCHAT_LLM_URL;',
        }),
      ),
    ).toEqual([
      "src/store/postgres/pg-store.ts → src/store/sqlite/db.ts: the PostgreSQL driver never imports the SQLite one",
      "src/rag/retrieve.ts: only store/ touches SQLite",
      "src/rag/retrieve.ts: only config/ reads the environment",
    ]);
  });

  test("imports are read with their kind: static, type-only, re-exports and dynamic", () => {
    const src = [
      'import { a, type B } from "./a.ts";',
      'import type { C } from "../c.ts";',
      'import { type D, type E } from "./d.ts";',
      'export { f } from "./f.ts";',
      'const g = await import("./g.ts");',
      'import x from "node:fs";',
    ].join("\n");
    expect(importsOf("src/x/y.ts", src)).toEqual([
      { from: "src/x/y.ts", to: "src/x/a.ts", typeOnly: false },
      { from: "src/x/y.ts", to: "src/c.ts", typeOnly: true },
      { from: "src/x/y.ts", to: "src/x/d.ts", typeOnly: true },
      { from: "src/x/y.ts", to: "src/x/f.ts", typeOnly: false },
      { from: "src/x/y.ts", to: "src/x/g.ts", typeOnly: false },
    ]);
  });
});

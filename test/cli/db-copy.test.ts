/**
 * `docchat db copy`: a data dir built by the real app (documents trained with vectors, chats, a rating and its
 * correction, a handoff lead and its mail, keys) copied by the real CLI into a real PostgreSQL cluster.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { COPY_TABLES } from "../../src/store/copy/db-copy.ts";
import { createPgChunkIndex } from "../../src/store/postgres/chunk-index.pg.ts";
import { createSqliteChunkIndex } from "../../src/store/sqlite/chunk-index.sqlite.ts";
import { openDatabaseFile } from "../../src/store/sqlite/db.ts";
import { searched } from "../helpers/analyzed.ts";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.ts";
import { startServeProcess } from "../helpers/serve-process.ts";
import { runCliProcess, startTestServer, tempDir } from "../helpers/server.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";
import { testSql } from "../helpers/test-sql.ts";

setDefaultTimeout(60_000);

const PASSWORD = "s3cret-Pw-never-shown";
/** The test cluster trusts loopback connections, so a password in the URL is accepted and must never be printed. */
const withPassword = (url: string) => url.replace("postgres://docchat@", `postgres://docchat:${PASSWORD}@`);

let data: string;
let models: FakeModelServer;
let apiKey = "";
let deploymentId = "";
const noModels = tempDir("docchat-no-models-");
const clients: SQL[] = [];
const pg = (url: string) => {
  const c = new SQL(url, { max: 2 });
  clients.push(c);
  return c;
};

const DOCS = [
  {
    name: "returns.txt",
    content: "Returns policy. Unworn shoes may be returned within 30 days with the receipt. Refunds go to the original card.",
  },
  { name: "shipping.txt", content: "Shipping. Orders ship within two working days. Express delivery to the islands costs extra." },
  { name: "care.txt", content: "Leather care. Clean the leather with a damp cloth and apply wax once a month; never use a tumble dryer." },
];

beforeAll(async () => {
  models = startFakeModelServer({ dimension: 48 });
  data = tempDir("docchat-copy-src-");
  const env = {
    DOCCHAT_EMBEDDER: "auto",
    DOCCHAT_MODELS: noModels,
    DOCCHAT_EMBEDDINGS_URL: models.url,
    DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
    DOCCHAT_TRAIN_WAIT_MS: "0",
  };
  const srv = await startTestServer(env, { dataDir: data });
  try {
    const seeded = await srv.seed();
    apiKey = seeded.apiKey;
    deploymentId = seeded.deploymentId;
    srv.services.deployments.update(deploymentId, { name: "Shoe Shop", handoffEnabled: true });
    const auth = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    for (const d of DOCS) {
      const r = await fetch(`${srv.url}/api/v1/documents`, { method: "POST", headers: auth, body: JSON.stringify(d) });
      expect(r.status).toBeLessThan(300);
    }
    for (let i = 0; i < 100; i++) {
      const statuses = await testSql(srv.services).all<{ status: string }>("SELECT status FROM documents");
      if (statuses.length === DOCS.length && statuses.every((d) => d.status === "completed")) break;
      await Bun.sleep(100);
    }
    const ask = async (content: string, conversation_id?: string) => {
      const res = await fetch(`${srv.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          model: deploymentId,
          messages: [{ role: "user", content }],
          ...(conversation_id ? { conversation_id } : {}),
        }),
      });
      const body = (await res.json()) as { chat_log_id: number; conversation_id: string };
      if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${JSON.stringify(body)}`);
      return body;
    };
    const first = await ask("How many days do I have to return shoes?");
    await ask("Is express delivery available?", first.conversation_id);
    const refused = await ask("Which football team won the 1954 world cup?");
    const rated = await fetch(`${srv.url}/api/v1/widget/feedback`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ chat_log_id: first.chat_log_id, feedback: 0 }),
    });
    expect(rated.status).toBeLessThan(300);
    srv.services.corrections.set(first.chat_log_id, "30 days, with the receipt.", { deploymentId });
    const lead = await fetch(`${srv.url}/api/v1/widget/handoff`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        email: "visitor@example.org",
        name: "Vera",
        message: "Call me\tplease.\nThanks!",
        conversation_id: refused.conversation_id,
      }),
    });
    expect(lead.status).toBe(200);
  } finally {
    await srv.stop();
  }
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  await models.close();
  await stopSharedCluster();
  rmSync(data, { recursive: true, force: true });
  rmSync(noModels, { recursive: true, force: true });
});

interface Report {
  action: string;
  ok: boolean;
  to: string;
  tables: { table: string; source_rows: number; target_rows: number; source_checksum: string; target_checksum: string; equal: boolean }[];
  keyword_indexed_chunks: number;
  keyword_expected_chunks: number;
  vector_dimension: number | null;
}

async function copy(url: string, extra: string[] = []): Promise<{ code: number; stdout: string; stderr: string; report: Report | null }> {
  const r = await runCliProcess(["db", "copy", "--from-data", data, "--to", url, ...extra]);
  expect(`${r.stdout}${r.stderr}`).not.toContain(PASSWORD);
  const report = r.stdout.trim().startsWith("{") ? (JSON.parse(r.stdout) as Report) : null;
  return { ...r, report };
}

/** What the SQLite file holds, counted here independently of the command. */
function sourceCounts(): Record<string, number> {
  const db = new Database(join(data, "docchat.db"), { readonly: true });
  try {
    return Object.fromEntries(
      COPY_TABLES.map(({ table }) => [table, (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

/** Every table's row count and every sequence's position: what a no-op re-run must leave as it was. */
async function fingerprint(sql: SQL): Promise<string> {
  const tables = (await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`) as { tablename: string }[];
  const parts: string[] = [];
  for (const t of tables)
    parts.push(`${t.tablename}=${((await sql`SELECT count(*)::int AS n FROM ${sql(t.tablename)}`) as { n: number }[])[0]?.n}`);
  const seqs = (await sql`SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`) as {
    sequencename: string;
    last_value: string | null;
  }[];
  for (const s of seqs) parts.push(`${s.sequencename}@${s.last_value}`);
  const kw = (await sql`SELECT coalesce(sum(chunks), 0)::int8 AS c, coalesce(sum(tokens), 0)::int8 AS t FROM kw_stats`) as {
    c: string;
    t: string;
  }[];
  parts.push(`kw=${kw[0]?.c}/${kw[0]?.t}`);
  return parts.join(" ");
}

describe("docchat db copy", () => {
  let url = "";

  test("copies every table of a populated data dir, reports equal counts and checksums, and keeps keys, search and vectors working", async () => {
    url = await freshPgDatabase();
    const counts = sourceCounts();
    for (const t of [
      "accounts",
      "deployments",
      "api_keys",
      "documents",
      "chunks",
      "conversations",
      "chat_logs",
      "corrections",
      "leads",
      "mail_outbox",
      "embedding_cache",
      "index_meta",
    ]) {
      expect(counts[t]).toBeGreaterThan(0);
    }
    const r = await copy(withPassword(url), ["--json"]);
    expect(r.stderr).toBe("");
    const report = r.report as Report;
    expect(report.tables.filter((t) => !t.equal)).toEqual([]);
    expect(r.code).toBe(0);
    expect(report).toMatchObject({ action: "copied", ok: true, vector_dimension: 48 });
    expect(report.to).not.toContain("docchat:");
    expect(report.tables.map((t) => t.table)).toEqual([...COPY_TABLES.map((t) => t.table), "vectors"]);
    for (const t of report.tables) {
      if (t.table !== "vectors") expect(t.source_rows).toBe(counts[t.table] as number);
      expect(t.target_rows).toBe(t.source_rows);
      expect(t.target_checksum).toBe(t.source_checksum);
      expect(t.equal).toBe(true);
    }
    expect(report.tables.find((t) => t.table === "vectors")?.target_rows).toBe(counts.chunks as number);
    expect(report.keyword_indexed_chunks).toBe(counts.chunks as number);
    expect(report.keyword_expected_chunks).toBe(counts.chunks as number);

    const sql = pg(url);
    // the key's hash came across (the key itself exists nowhere): it still names its deployment
    const src = new Database(join(data, "docchat.db"), { readonly: true });
    const stored = (src.query("SELECT key_hash FROM api_keys WHERE deployment_id = ?").get(deploymentId) as { key_hash: string }).key_hash;
    src.close();
    expect(
      ((await sql`SELECT deployment_id FROM api_keys WHERE key_hash = ${stored}`) as { deployment_id: string }[])[0]?.deployment_id,
    ).toBe(deploymentId);
    // keyword postings were rebuilt and vectors copied: the PostgreSQL index finds the returns policy both ways
    const index = await createPgChunkIndex(sql);
    const chunkOf = ((await sql`SELECT id FROM chunks WHERE text LIKE ${"%returned within 30 days%"}`) as { id: string }[]).map((x) =>
      Number(x.id),
    );
    expect(chunkOf).toHaveLength(1);
    const kw = await index.keywordSearch(deploymentId, searched("returned"), 5);
    expect(kw.map((h) => h.id)).toEqual(chunkOf);
    // and ranks like the SQLite index it came from
    const lite = await openDatabaseFile(join(data, "docchat.db"), { vecDir: data, readonly: true });
    try {
      const liteIndex = createSqliteChunkIndex(lite);
      for (const q of [
        ["shoes", "leather", "delivery"],
        ["the", "receipt"],
      ]) {
        const [a, b] = [await liteIndex.keywordSearch(deploymentId, q, 10), await index.keywordSearch(deploymentId, q, 10)];
        expect(b.map((h) => h.id)).toEqual(a.map((h) => h.id));
        for (const [i, h] of b.entries()) expect(h.score).toBeCloseTo((a[i] as { score: number }).score, 6);
      }
    } finally {
      lite.close();
    }
    const [vecRow] = (await sql`SELECT embedding::text AS v FROM chunk_vectors WHERE chunk_id = ${chunkOf[0] as number}`) as {
      v: string;
    }[];
    const near = await index.exactVectorSearch(deploymentId, Float32Array.from(JSON.parse((vecRow as { v: string }).v) as number[]), 1);
    expect(near[0]?.id).toBe(chunkOf[0] as number);
    // sequences continue after the copied ids: a new row does not collide
    const maxLog = Number(((await sql`SELECT max(id) AS m FROM chat_logs`) as { m: string }[])[0]?.m);
    const next = Number(((await sql`SELECT nextval(pg_get_serial_sequence('chat_logs', 'id')) AS n`) as { n: string }[])[0]?.n);
    expect(next).toBe(maxLog + 1);
  });

  test("a node started on the copy accepts the same API key for its deployment", async () => {
    const node = tempDir("docchat-copy-node-");
    const server = await startServeProcess({
      command: [process.execPath, join(import.meta.dir, "../../src/main.ts")],
      dataDir: node,
      env: {
        DOCCHAT_DATABASE_URL: url,
        DOCCHAT_EMBEDDER: "auto",
        DOCCHAT_MODELS: noModels,
        DOCCHAT_EMBEDDINGS_URL: models.url,
        DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
      },
    });
    try {
      const res = await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual([deploymentId]);
      const wrong = await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${apiKey}x` } });
      expect(wrong.status).toBe(401);
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
      rmSync(node, { recursive: true, force: true });
    }
  });

  test("a second run into the same database finds everything equal and changes nothing", async () => {
    const sql = pg(url);
    const before = await fingerprint(sql);
    const r = await copy(withPassword(url));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("already holds a copy");
    expect(r.stdout).toContain("Every table matches.");
    expect(r.stdout).toMatch(/keyword index: (\d+) of \1 chunks; vectors: dimension 48/);
    expect(r.stdout).toMatch(/chat_logs\s+\d+\s+\d+\s+[0-9a-f]{32}\s+ok/);
    expect(await fingerprint(sql)).toBe(before);
  });

  test("a database holding other data is refused and left untouched", async () => {
    const other = await freshPgDatabase();
    const sql = pg(other);
    const { migratePg } = await import("../../src/store/postgres/migrate.pg.ts");
    await migratePg(sql);
    await sql`INSERT INTO accounts (email, created_at) VALUES ('someone@else.example', 1)`;
    const before = await fingerprint(sql);
    const r = await copy(withPassword(other));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("refused");
    expect(r.stderr).toContain("not empty");
    expect(r.stderr).toContain("accounts");
    expect(await fingerprint(sql)).toBe(before);
  });

  test("an earlier copy of a data dir that has changed since is refused, never duplicated", async () => {
    const more = await runCliProcess(["account", "create", "--email", "late@example.com", "--data", data, "--json"], {
      DOCCHAT_EMBEDDER: "none",
    });
    expect(more.code).toBe(0);
    const sql = pg(url);
    const before = await fingerprint(sql);
    const r = await copy(url);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("does not hold a copy");
    expect(r.stderr).toMatch(/accounts: \d+ rows there, \d+ here/);
    expect(await fingerprint(sql)).toBe(before);
  });

  test("a data dir a running server holds is refused", async () => {
    const server = await startServeProcess({
      command: [process.execPath, join(import.meta.dir, "../../src/main.ts")],
      dataDir: data,
      env: {
        DOCCHAT_EMBEDDER: "auto",
        DOCCHAT_MODELS: noModels,
        DOCCHAT_EMBEDDINGS_URL: models.url,
        DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
      },
    });
    try {
      const r = await copy(await freshPgDatabase());
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("stop it first");
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
    }
  });

  test("two copies started at once into one empty database make one copy: the other is refused or finds it equal", async () => {
    const target = await freshPgDatabase();
    const runs = await Promise.all([copy(target, ["--json"]), copy(target, ["--json"])]);
    const copied = runs.filter((r) => r.report?.action === "copied");
    expect(copied).toHaveLength(1);
    const other = runs.find((r) => r.report?.action !== "copied") as (typeof runs)[number];
    if (other.code === 0) expect(other.report).toMatchObject({ action: "unchanged", ok: true });
    else expect(other.stderr).toMatch(/filled by someone else|does not hold a copy/);
    const again = await copy(target, ["--json"]);
    expect(again.report).toMatchObject({ action: "unchanged", ok: true });
    const counts = sourceCounts();
    for (const t of again.report?.tables ?? []) if (t.table !== "vectors") expect(t.target_rows).toBe(counts[t.table] as number);
    expect(again.report?.tables.find((t) => t.table === "vectors")?.target_rows).toBe(counts.chunks as number);
  });

  test("a server that does not answer fails clearly, naming host and port but never the password", async () => {
    const closed = withPassword(url).replace(/:\d+\//, ":1/");
    const r = await copy(closed);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot connect to PostgreSQL at 127.0.0.1:1/");
  });

  test("without --from-data or with a URL that is not postgres:// it is a usage error", async () => {
    expect((await runCliProcess(["db", "copy", "--to", url])).code).toBe(2);
    const bad = await runCliProcess(["db", "copy", "--from-data", data, "--to", "mysql://x@y/z"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("postgres://");
  });
});

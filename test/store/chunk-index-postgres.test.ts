/** What only the PostgreSQL chunk index has to get right: callers' transactions and several nodes writing at once. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { NewChunk } from "../../src/store/contract/index.ts";
import { createPgChunkIndex, createPgTermStats } from "../../src/store/postgres/chunk-index.pg.ts";
import { migratePg } from "../../src/store/postgres/migrate.pg.ts";
import { searched, withTerms } from "../helpers/analyzed.ts";
import { pgDocument } from "../helpers/index-drivers.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";

let cluster: PgCluster;
const clients: SQL[] = [];
const node = () => {
  const sql = new SQL(cluster.url, { max: 3 });
  clients.push(sql);
  return sql;
};
beforeAll(async () => {
  cluster = await startPostgres();
  await migratePg(node());
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await cluster.stop();
});

const chunk = (text: string): NewChunk => withTerms({ ord: 0, source: "s", text, headingPath: "", tokenCount: 1, textHash: text });

describe("PostgreSQL chunk index", () => {
  test("chunks written in the caller's transaction roll back with it", async () => {
    const sql = node();
    const index = await createPgChunkIndex(sql);
    const stats = createPgTermStats(sql);
    await expect(
      sql.begin(async (tx) => {
        await pgDocument(tx, "dep_tx", "doc_tx");
        await index.insert("dep_tx", "doc_tx", [chunk("walrus tusks")], tx);
        throw new Error("the document's status update failed");
      }),
    ).rejects.toThrow("status update failed");
    expect(await index.counts("doc_tx")).toEqual({ chunks: 0, fts: 0, vec: 0 });
    expect(await stats.totalChunks("dep_tx")).toBe(0);
    expect((await stats.documentFrequencies("dep_tx", ["walrus"])).get("walrus")).toBe(0);
  });

  test("a question's document frequencies and N come in one round trip, N as fresh as a query of its own", async () => {
    const sql = node();
    const index = await createPgChunkIndex(sql);
    await pgDocument(sql, "dep_trip", "doc_trip");
    await index.insert("dep_trip", "doc_trip", [chunk("walrus tusks"), chunk("walrus whiskers")]);
    let queries = 0;
    const counted = new Proxy(sql, {
      apply: (f, self, args) => {
        queries++;
        return Reflect.apply(f, self, args);
      },
    });
    const stats = createPgTermStats(counted);
    const [df, n] = await Promise.all([stats.documentFrequencies("dep_trip", ["walrus", "narwhal"]), stats.totalChunks("dep_trip")]);
    expect(queries).toBe(1);
    expect([...df]).toEqual([
      ["walrus", 2],
      ["narwhal", 0],
    ]);
    expect(n).toBe(2);
    // asked alone (nothing in flight) it reads N itself: a chunk added since counts
    await index.insert("dep_trip", "doc_trip", [chunk("walrus skin")]);
    expect(await stats.totalChunks("dep_trip")).toBe(3);
    expect(queries).toBe(2);
    expect(await stats.totalChunks("dep_none")).toBe(0);
  });

  test("three nodes writing and deleting in one deployment at once keep its statistics exact", async () => {
    const nodes = await Promise.all([0, 1, 2].map(() => createPgChunkIndex(node())));
    const seed = node();
    await pgDocument(seed, "dep_busy", "doc_first");
    const words = ["amber", "basalt", "cobalt", "dolomite", "emerald"];
    const docs = await Promise.all(
      nodes.flatMap((index, n) =>
        Array.from({ length: 8 }, async (_, i) => {
          const id = `doc_${n}_${i}`;
          await pgDocument(seed, "dep_busy", id);
          await index.insert("dep_busy", id, [
            chunk(`${words[(n + i) % 5]} ${words[(n + 2 * i) % 5]} quartz`),
            chunk(`${words[i % 5]} quartz quartz`),
          ]);
          return id;
        }),
      ),
    );
    await Promise.all(docs.filter((_, i) => i % 3 === 0).map((d, i) => (nodes[i % 3] as (typeof nodes)[number]).deleteDocument(d)));
    const sql = node();
    const stats = createPgTermStats(sql);
    const [truth] = (await sql`SELECT count(*)::int AS n, sum(kw_length)::int AS tokens FROM chunks WHERE deployment_id = 'dep_busy'`) as {
      n: number;
      tokens: number;
    }[];
    const [kept] = (await sql`SELECT chunks::int AS n, tokens::int AS tokens FROM kw_stats WHERE deployment_id = 'dep_busy'`) as {
      n: number;
      tokens: number;
    }[];
    expect({ ...kept }).toEqual({ ...truth } as { n: number; tokens: number });
    expect(await stats.totalChunks("dep_busy")).toBe(truth?.n as number);
    const term = (w: string) => searched(w)[0] as string;
    const df = new Map(
      [...(await stats.documentFrequencies("dep_busy", [...words, "quartz"].map(term))).entries()].map(([t, n]) => [
        [...words, "quartz"].find((w) => term(w) === t) as string,
        n,
      ]),
    );
    for (const w of [...words, "quartz"]) {
      const [c] =
        (await sql`SELECT count(*)::int AS n FROM chunks WHERE deployment_id = 'dep_busy' AND (' ' || text || ' ') LIKE ${`% ${w} %`}`) as {
          n: number;
        }[];
      expect(df.get(w)).toBe(c?.n as number);
    }
    expect(df.get("quartz")).toBe(truth?.n as number);
  });

  test("dropping a deployment removes its chunks, postings, terms and statistics and leaves other deployments alone", async () => {
    const sql = node();
    const index = await createPgChunkIndex(sql);
    const stats = createPgTermStats(sql);
    await pgDocument(sql, "dep_gone", "doc_g");
    await pgDocument(sql, "dep_stays", "doc_s");
    await index.insert("dep_gone", "doc_g", [chunk("heron marsh"), chunk("heron")]);
    await index.insert("dep_stays", "doc_s", [chunk("heron lake")]);
    await index.dropDeployment("dep_gone");
    const left = (await sql`SELECT (SELECT count(*)::int FROM chunks WHERE deployment_id = 'dep_gone') AS chunks,
      (SELECT count(*)::int FROM kw_terms WHERE deployment_id = 'dep_gone') AS terms,
      (SELECT count(*)::int FROM kw_postings p WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = p.chunk_id)) AS orphans`) as Record<
      string,
      number
    >[];
    expect({ ...left[0] }).toEqual({ chunks: 0, terms: 0, orphans: 0 });
    expect(await stats.totalChunks("dep_gone")).toBe(0);
    expect((await index.keywordSearch("dep_stays", searched("heron"), 5)).length).toBe(1);
  });

  test("vector search through the HNSW index finds a deployment's exact nearest (recall@10 ≥ 0.95) among another deployment's closer vectors, and only its own", async () => {
    const dim = 24;
    // vectors around 40 centres; the other deployment's lie closer to each centre (so closer to each query) and
    // outnumber ours three to one: an index scan filtered after the fact would come back short or mixed
    let seed = 7;
    const next = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed / 2 ** 32 - 0.5;
    };
    const centres = Array.from({ length: 40 }, () => Array.from({ length: dim }, next));
    const around = (c: number[], spread: number) => Float32Array.from(c, (x) => x + spread * next());
    await (await createPgChunkIndex(node())).createVectorTable(dim);
    const ids = new Map<string, Set<number>>();
    for (const [dep, n, spread] of [
      ["dep_ours", 400, 0.6],
      ["dep_theirs", 1200, 0.3],
    ] as const) {
      const sql = node();
      await pgDocument(sql, dep, `doc_${dep}`);
      const chunks = Array.from({ length: n }, (_, i) => ({
        ...chunk(`${dep} ${i}`),
        vector: around(centres[i % 40] as number[], spread),
      }));
      ids.set(dep, new Set(await (await createPgChunkIndex(sql)).insert(dep, `doc_${dep}`, chunks)));
    }
    const admin = node();
    await admin`ANALYZE chunk_vectors`;
    const queries = Array.from({ length: 30 }, (_, i) => around(centres[(i * 7) % 40] as number[], 0.3));
    const reference = await createPgChunkIndex(admin);
    const exact = await Promise.all(queries.map((q) => reference.exactVectorSearch("dep_ours", q, 10)));
    // sorting priced out for new sessions: the planner must take the HNSW index for the order (at this size it
    // would sort instead)
    await admin.unsafe("ALTER DATABASE docchat SET enable_sort = off");
    const sql = node();
    try {
      const plan = (await sql.unsafe(
        `EXPLAIN SELECT chunk_id FROM chunk_vectors WHERE deployment_id = 'dep_ours' ORDER BY embedding <=> $1::vector LIMIT 50`,
        [`[${Array(dim).fill(0.1).join(",")}]`],
      )) as { "QUERY PLAN": string }[];
      expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toContain("chunk_vectors_hnsw");
      const index = await createPgChunkIndex(sql);
      let found = 0;
      for (const [i, q] of queries.entries()) {
        const got = await index.vectorSearch("dep_ours", q, 50);
        expect(got).toHaveLength(50);
        expect(got.every((h) => ids.get("dep_ours")?.has(h.id))).toBe(true);
        expect(got.every((h, j) => j === 0 || h.distance >= (got[j - 1]?.distance as number))).toBe(true);
        const top = new Set(got.slice(0, 10).map((h) => h.id));
        found += (exact[i] ?? []).filter((h) => top.has(h.id)).length;
      }
      expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
    } finally {
      await admin.unsafe("ALTER DATABASE docchat RESET enable_sort");
      await (await createPgChunkIndex(admin)).createVectorTable(null);
    }
  }, 60_000);

  test("a node learns of a vector table another node created when it refreshes", async () => {
    const a = await createPgChunkIndex(node());
    const b = await createPgChunkIndex(node());
    await a.createVectorTable(4);
    expect(b.hasVectors()).toBe(false);
    await b.refresh();
    expect(b.hasVectors()).toBe(true);
    await a.createVectorTable(null);
  });
});

/**
 * Which PostgreSQL client: Bun's built-in `Bun.sql` against `postgres` (postgres.js) and `pg` (node-postgres), on
 * one throwaway PostgreSQL 15 cluster (test/helpers/postgres.ts, fsync off so the server's disk doesn't hide the
 * client's cost), in one run:
 *   - a parameterised point query (SELECT by primary key), sequential awaits and 16 in flight;
 *   - a batched insert: 20,000 rows in statements of 500 rows, each an INSERT … SELECT FROM unnest($1::int[], $2::text[])
 *     (parameterised arrays; the shape the PostgreSQL chunk index writes with).
 * Each client uses a pool of 4 connections. Alternating rounds; the median round is reported.
 *
 *   bun add --no-save postgres@3.4.9 pg@8.23.1 && bun bench/pg-client.bench.ts [--no-write]
 */
import { parseArgs } from "node:util";
import { SQL } from "bun";
import { startPostgres } from "../test/helpers/postgres.ts";
import { reportSection } from "./lib/benchmarks-md.ts";
import { describeMachine } from "./lib/machine-info.ts";

const { values: args } = parseArgs({
  options: { "no-write": { type: "boolean", default: false }, rounds: { type: "string", default: "5" } },
});

interface Client {
  name: string;
  point(id: number): Promise<unknown>;
  insertBatch(ids: number[], texts: string[]): Promise<unknown>;
  close(): Promise<void>;
}

const POINTS = 4000;
const ROWS = 20_000;
const BATCH = 500;
const TEXT = "Fibroblast growth factor signalling regulates the proliferation of progenitor cells in the developing lung.";

async function clients(url: string): Promise<Client[]> {
  const out: Client[] = [];
  const bun = new SQL(url, { max: 4 });
  out.push({
    name: "Bun.sql (built in)",
    point: (id) => bun`SELECT id, body FROM bench_rows WHERE id = ${id}`,
    insertBatch: (ids, texts) =>
      bun`INSERT INTO bench_ins (id, body) SELECT * FROM unnest(${bun.array(ids, "INT4")}::int[], ${bun.array(texts, "TEXT")}::text[])`,
    close: () => bun.close(),
  });
  try {
    const postgres = (await optional("postgres")).default;
    const pj = postgres(url, { max: 4 });
    out.push({
      name: "postgres 3.4.9 (postgres.js)",
      point: (id: number) => pj`SELECT id, body FROM bench_rows WHERE id = ${id}`,
      insertBatch: (ids, texts) =>
        pj`INSERT INTO bench_ins (id, body) SELECT * FROM unnest(${pj.array(ids)}::int[], ${pj.array(texts)}::text[])`,
      close: () => pj.end(),
    });
  } catch {
    console.log("postgres is not installed: bun add --no-save postgres@3.4.9");
  }
  try {
    const pg = (await optional("pg")).default;
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    out.push({
      name: "pg 8.23.1 (node-postgres, pure JS)",
      // a named statement is node-postgres's prepared statement; the other two prepare automatically
      point: (id: number) => pool.query({ name: "point", text: "SELECT id, body FROM bench_rows WHERE id = $1", values: [id] }),
      insertBatch: (ids, texts) =>
        pool.query({
          name: "ins",
          text: "INSERT INTO bench_ins (id, body) SELECT * FROM unnest($1::int[], $2::text[])",
          values: [ids, texts],
        }),
      close: () => pool.end(),
    });
  } catch {
    console.log("pg is not installed: bun add --no-save pg@8.23.1");
  }
  return out;
}

/** Optional bench-only clients, not dependencies of docchat: imported by a computed name so typecheck doesn't need them. */
// biome-ignore lint/suspicious/noExplicitAny: untyped optional modules
const optional = (name: string): Promise<any> => import(name);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const cluster = await startPostgres();
try {
  const setup = new SQL(cluster.url);
  await setup`CREATE TABLE bench_rows (id int PRIMARY KEY, body text NOT NULL)`;
  await setup`INSERT INTO bench_rows SELECT g, ${TEXT} || g FROM generate_series(1, 100000) g`;
  await setup`CREATE TABLE bench_ins (id int NOT NULL, body text NOT NULL)`;
  await setup`VACUUM ANALYZE bench_rows`;
  const all = await clients(cluster.url);
  const results = new Map<string, { seq: number[]; par: number[]; ins: number[] }>(all.map((c) => [c.name, { seq: [], par: [], ins: [] }]));
  const rounds = Number(args.rounds);
  for (let round = 0; round <= rounds; round++) {
    for (const c of all) {
      const r = results.get(c.name) as { seq: number[]; par: number[]; ins: number[] };
      let t = performance.now();
      for (let i = 0; i < POINTS; i++) await c.point(1 + ((i * 7919) % 100000));
      const seq = (POINTS / (performance.now() - t)) * 1000;
      t = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < POINTS) await c.point(1 + ((next++ * 7919) % 100000));
        }),
      );
      const par = (POINTS / (performance.now() - t)) * 1000;
      await setup`TRUNCATE bench_ins`;
      t = performance.now();
      for (let i = 0; i < ROWS; i += BATCH) {
        const ids = Array.from({ length: BATCH }, (_, j) => i + j);
        await c.insertBatch(
          ids,
          ids.map((id) => `${TEXT} ${id}`),
        );
      }
      const ins = (ROWS / (performance.now() - t)) * 1000;
      const [{ n }] = (await setup`SELECT count(*)::int AS n FROM bench_ins`) as [{ n: number }];
      if (n !== ROWS) throw new Error(`${c.name} inserted ${n} rows, expected ${ROWS}`);
      if (round > 0) {
        // round 0 warms up (connections, prepared statements, JIT)
        r.seq.push(seq);
        r.par.push(par);
        r.ins.push(ins);
      }
    }
  }
  for (const c of all) await c.close();
  await setup.close();
  const f = (x: number) => Math.round(x).toLocaleString("en-US");
  const body = [
    `Command: \`bun add --no-save postgres@3.4.9 pg@8.23.1 && bun bench/pg-client.bench.ts\``,
    `Machine: ${describeMachine()}; PostgreSQL 15 throwaway cluster on 127.0.0.1 (fsync off), pool of 4 connections per client; median of ${rounds} alternating rounds after a warm-up round.`,
    "",
    "| client | point query, sequential (queries/s) | point query, 16 in flight (queries/s) | batched insert, 500 rows/statement (rows/s) |",
    "| --- | ---: | ---: | ---: |",
    ...all.map((c) => {
      const r = results.get(c.name) as { seq: number[]; par: number[]; ins: number[] };
      return `| ${c.name} | ${f(median(r.seq))} | ${f(median(r.par))} | ${f(median(r.ins))} |`;
    }),
    "",
    "Point query: `SELECT id, body FROM bench_rows WHERE id = $1` over 100k rows. Insert: `INSERT … SELECT FROM unnest($1::int[], $2::text[])`, 20,000 rows per round.",
  ].join("\n");
  await reportSection("PostgreSQL client (Bun.sql vs postgres vs pg)", body, !args["no-write"]);
} finally {
  await cluster.stop();
}

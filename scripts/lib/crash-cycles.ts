/**
 * Crash-safety harness: start the real server process, push documents, kill -9 it at a random moment,
 * restart, and check the invariants of the index. Used by scripts/crash-test.ts (many cycles) and by the
 * test suite (a few cycles).
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { freePort } from "../../test/helpers/free-port.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");

export interface CycleReport {
  cycle: number;
  acknowledged: number;
  killedAfterMs: number;
  problems: string[];
}

async function cli(args: string[], env: Record<string, string>) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`docchat ${args.join(" ")} failed: ${err}`);
  return JSON.parse(out) as Record<string, unknown>;
}

async function startServer(dataDir: string, env: Record<string, string>) {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, MAIN, "serve", "--data", dataDir, "--port", String(port)], {
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { proc, url };
    } catch {}
    await Bun.sleep(50);
  }
  proc.kill(9);
  throw new Error("server did not become healthy");
}

function docText(cycle: number, i: number): string {
  const paras = Array.from(
    { length: 12 },
    (_, p) =>
      `Section ${p + 1} of report ${cycle}-${i}. The committee reviewed item ${p * 7 + i} and approved budget line ${cycle * 100 + p}. Notes mention river ${i} and station ${p}.`,
  );
  return `Report ${cycle}-${i}\n\n${paras.join("\n\n")}`;
}

/** Checks the invariants on a closed database file. Returns a list of problems (empty = healthy). */
export function checkInvariants(dbPath: string, vecLib: string | null, acknowledged: string[], final: boolean): string[] {
  const problems: string[] = [];
  const db = new Database(dbPath);
  try {
    if (vecLib) db.loadExtension(vecLib);
    const ic = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    if (ic.length !== 1 || ic[0]?.integrity_check !== "ok") problems.push(`integrity_check: ${JSON.stringify(ic)}`);
    const kwTables = new Map(
      db
        .query<{ n: number; deployment_id: string }, []>("SELECT n, deployment_id FROM keyword_tables")
        .all()
        .map((r) => [r.deployment_id, `kw_${r.n}`]),
    );
    for (const t of kwTables.values()) {
      try {
        db.run(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`);
      } catch (e) {
        problems.push(`fts integrity-check ${t}: ${(e as Error).message}`);
      }
    }
    const hasVec = db.query("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'").get() !== null;
    const hasCodes = db.query("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec_codes'").get() !== null;
    const docs = db
      .query<{ id: string; deployment_id: string; status: string; error_code: string | null; chunk_count: number }, []>(
        "SELECT id, deployment_id, status, error_code, chunk_count FROM documents",
      )
      .all();
    const byId = new Map(docs.map((d) => [d.id, d]));
    for (const id of acknowledged) {
      const d = byId.get(id);
      if (!d) problems.push(`acknowledged document ${id} is missing`);
      else if (final && d.status !== "completed" && !(d.status === "failed" && d.error_code))
        problems.push(`document ${id} ended as ${d.status}`);
    }
    /** Rows of a query's COUNT(*) AS n for one document id. */
    const count = (sql: string, documentId: string) => db.query<{ n: number }, [string]>(sql).get(documentId)?.n ?? 0;
    for (const d of docs) {
      const chunks = count("SELECT COUNT(*) AS n FROM chunks WHERE document_id = ?", d.id);
      const kw = kwTables.get(d.deployment_id);
      const fts = kw ? count(`SELECT COUNT(*) AS n FROM ${kw}_docsize WHERE id IN (SELECT id FROM chunks WHERE document_id = ?)`, d.id) : 0;
      const vec = hasVec
        ? count("SELECT COUNT(*) AS n FROM chunks_vec WHERE rowid IN (SELECT id FROM chunks WHERE document_id = ?)", d.id)
        : chunks;
      // every vector has its binary code (vector-search.sqlite.ts), written in the same transaction
      const codes = hasCodes
        ? count("SELECT COUNT(*) AS n FROM chunks_vec_codes WHERE rowid IN (SELECT id FROM chunks WHERE document_id = ?)", d.id)
        : vec;
      if (chunks !== fts || chunks !== vec || codes !== vec)
        problems.push(`document ${d.id}: chunks=${chunks} fts=${fts} vec=${vec} codes=${codes}`);
      if (d.status === "completed" && chunks !== d.chunk_count)
        problems.push(`document ${d.id}: completed with ${chunks} chunks, recorded ${d.chunk_count}`);
      // a large document's staged rows (deployment "~staging:<id>") are written before it is published and match no search
      const visible =
        db
          .query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM chunks WHERE document_id = ? AND deployment_id NOT LIKE '~staging:%'")
          .get(d.id)?.n ?? 0;
      if (d.status !== "completed" && visible > 0) problems.push(`document ${d.id}: ${d.status} but has ${visible} visible chunks`);
    }
  } finally {
    db.close();
  }
  return problems;
}

export async function runCrashCycles(opts: {
  dataDir: string;
  cycles: number;
  docsPerCycle?: number;
  maxKillMs?: number;
  /**
   * Kill only once this cycle has an acknowledged document (then after the random delay): every cycle then tests
   * an acknowledgement, however slow a busy machine makes the first one. Default: kill on the clock alone.
   */
  killAfterFirstAck?: boolean;
  env?: Record<string, string>;
  log?: (r: CycleReport) => void;
}): Promise<{ reports: CycleReport[]; finalProblems: string[] }> {
  const env = { DOCCHAT_LOG_LEVEL: "silent", DOCCHAT_TRAIN_WAIT_MS: "0", DOCCHAT_EMBEDDER: "none", ...opts.env };
  const email = `crash-${Date.now()}@example.com`;
  await cli(["account", "create", "--email", email, "--tokens", "1000", "--json", "--data", opts.dataDir], env);
  const dep = await cli(
    ["deployment", "create", "--account", email, "--name", "Crash", "--publish", "--json", "--data", opts.dataDir],
    env,
  );
  const key = dep.api_key as string;
  // The harness lists documents with the key, which the owner has to allow.
  await cli(["deployment", "update", dep.id as string, "--key-manages-documents", "on", "--json", "--data", opts.dataDir], env);
  const acknowledged: string[] = [];
  const reports: CycleReport[] = [];
  const dbPath = join(opts.dataDir, "docchat.db");
  const vecLib = () => {
    const g = new Bun.Glob("lib/sqlite-vec-*/vec0.so");
    for (const f of g.scanSync({ cwd: opts.dataDir })) return join(opts.dataDir, f);
    return null;
  };
  for (let cycle = 1; cycle <= opts.cycles; cycle++) {
    const { proc, url } = await startServer(opts.dataDir, env);
    const killAfter = 30 + Math.floor(Math.random() * (opts.maxKillMs ?? 700));
    const pushes = Array.from({ length: opts.docsPerCycle ?? 6 }, async (_, i) => {
      try {
        const r = await fetch(`${url}/api/v1/documents`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ content: docText(cycle, i), name: `report-${cycle}-${i}.txt` }),
        });
        if (r.status === 200 || r.status === 202) acknowledged.push(((await r.json()) as { id: string }).id);
      } catch {
        // killed before the answer: not acknowledged, nothing promised
      }
    });
    if (opts.killAfterFirstAck) {
      const before = acknowledged.length;
      // a hang guard, not a timing assertion: the pushes settle (acknowledged or refused) long before it
      const deadline = Date.now() + 120_000;
      while (acknowledged.length === before && Date.now() < deadline) await Bun.sleep(5);
    }
    await Bun.sleep(killAfter);
    proc.kill(9);
    await proc.exited;
    await Promise.allSettled(pushes);
    const problems = checkInvariants(dbPath, vecLib(), acknowledged, false);
    const report = { cycle, acknowledged: acknowledged.length, killedAfterMs: killAfter, problems };
    reports.push(report);
    opts.log?.(report);
  }
  // A last clean run lets resumed training finish; every acknowledged document must end Completed or Failed.
  const { proc, url } = await startServer(opts.dataDir, env);
  for (let i = 0; i < 600; i++) {
    const list = (await (await fetch(`${url}/api/v1/documents`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      data: { status: string }[];
    };
    if (list.data.every((d) => d.status === "completed" || d.status === "failed")) break;
    await Bun.sleep(100);
  }
  proc.kill("SIGTERM");
  await proc.exited;
  return { reports, finalProblems: checkInvariants(dbPath, vecLib(), acknowledged, true) };
}

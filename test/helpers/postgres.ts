/**
 * A throwaway PostgreSQL 15 cluster with pgvector for tests and benchmarks: initdb into a fresh temp dir (as the
 * `postgres` user when running as root — the server refuses to run as root), started with pg_ctl on a free
 * loopback port with its socket inside that dir, `CREATE EXTENSION vector` in database `docchat`, and removed
 * (server stopped, dir deleted) by stop(). `bun run test` installs what this needs (scripts/ensure-postgres.ts);
 * a missing install is an error here, never a skipped test.
 */
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePostgres, PG_BIN } from "../../scripts/ensure-postgres.ts";
import { freePort } from "./free-port.ts";

export interface PgCluster {
  /** postgres://docchat@127.0.0.1:PORT/docchat */
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
  /** stops the server at once, like a crash or a failover, keeping its data */
  crash(): Promise<void>;
  /** starts it again on the same port after crash() (crash recovery replays the WAL) */
  restart(): Promise<void>;
}

export interface PgClusterOptions {
  /** fsync and synchronous_commit off (default true): tests don't need durability; benchmarks that time writes do */
  fast?: boolean;
  /** extra `-c name=value` server settings */
  settings?: Record<string, string>;
}

async function exec(cmd: string[], asPostgres: boolean): Promise<{ ok: boolean; output: string }> {
  const full = asPostgres ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
  const p = Bun.spawn(full, { stdout: "pipe", stderr: "pipe", env: { ...process.env, LC_ALL: "C.UTF-8" } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { ok: code === 0, output: `${out}${err}` };
}

/** Clusters still running: stopped when this process exits, so an interrupted run leaves no server behind. */
const running = new Map<string, () => void>();
const stopAll = () => {
  for (const stop of running.values()) stop();
  running.clear();
};
process.on("exit", stopAll);
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.once(signal, () => {
    stopAll();
    process.exit(code);
  });
}

export async function startPostgres(opts: PgClusterOptions = {}): Promise<PgCluster> {
  const problem = ensurePostgres();
  if (problem) throw new Error(`PostgreSQL for tests: ${problem}`);
  const asPostgres = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "docchat-pg-"));
  const data = join(dir, "data");
  if (asPostgres)
    chownSync(
      dir,
      Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim()),
      Number(Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim()),
    );
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const init = await exec(
      [join(PG_BIN, "initdb"), "-D", data, "-U", "docchat", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"],
      asPostgres,
    );
    if (!init.ok) throw new Error(`initdb failed: ${init.output}`);
    const fast = opts.fast ?? true;
    const settings: Record<string, string> = {
      listen_addresses: "127.0.0.1",
      unix_socket_directories: dir,
      max_connections: "50",
      shared_buffers: "128MB",
      ...(fast ? { fsync: "off", synchronous_commit: "off", full_page_writes: "off" } : {}),
      ...opts.settings,
    };
    const flags = Object.entries(settings)
      .map(([k, v]) => `-c ${k}=${v}`)
      .join(" ");
    // a port chosen free can be taken before the server binds it: try a few
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const start = await exec(
        [join(PG_BIN, "pg_ctl"), "-D", data, "-l", join(dir, "server.log"), "-w", "-t", "30", "-o", `-p ${port} ${flags}`, "start"],
        asPostgres,
      );
      if (!start.ok) {
        if (attempt < 3) continue;
        const log = await Bun.file(join(dir, "server.log"))
          .text()
          .catch(() => "");
        throw new Error(`pg_ctl start failed: ${start.output}\n${log}`);
      }
      const psql = (sql: string, db = "postgres") =>
        exec(
          [
            join(PG_BIN, "psql"),
            "-X",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            "127.0.0.1",
            "-p",
            String(port),
            "-U",
            "docchat",
            "-d",
            db,
            "-c",
            sql,
          ],
          false,
        );
      const created = await psql("CREATE DATABASE docchat");
      if (!created.ok) throw new Error(`CREATE DATABASE failed: ${created.output}`);
      const ext = await psql("CREATE EXTENSION vector", "docchat");
      if (!ext.ok) throw new Error(`CREATE EXTENSION vector failed: ${ext.output}`);
      const stopNow = () => {
        Bun.spawnSync(
          asPostgres
            ? ["runuser", "-u", "postgres", "--", join(PG_BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]
            : [join(PG_BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"],
        );
        cleanup();
      };
      running.set(dir, stopNow);
      return {
        url: `postgres://docchat@127.0.0.1:${port}/docchat`,
        port,
        dir,
        async stop() {
          running.delete(dir);
          await exec([join(PG_BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"], asPostgres);
          cleanup();
        },
        async crash() {
          const r = await exec([join(PG_BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"], asPostgres);
          if (!r.ok) throw new Error(`pg_ctl stop failed: ${r.output}`);
        },
        async restart() {
          const r = await exec(
            [join(PG_BIN, "pg_ctl"), "-D", data, "-l", join(dir, "server.log"), "-w", "-t", "30", "-o", `-p ${port} ${flags}`, "start"],
            asPostgres,
          );
          if (!r.ok) throw new Error(`pg_ctl start failed: ${r.output}`);
        },
      };
    }
  } catch (e) {
    await exec([join(PG_BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"], asPostgres);
    cleanup();
    throw e;
  }
}

/**
 * The checks behind `docchat doctor`. Each part is imported lazily and every failure becomes a reported
 * status, so doctor still answers when a part (a model, an addon, the upstream) is missing or broken.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  statfsSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Config } from "../../config/index.ts";
import { readCappedText } from "../../net/read-capped.ts";

export type Status = "ok" | "warn" | "error";
export type Check = { status: Status; summary: string } & Record<string, unknown>;

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

async function timed<T>(ms: number, what: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`${what} did not answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([run(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export async function checkDataDir(config: Config): Promise<Check> {
  const path = resolve(config.dataDir);
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  if (existsSync(path) && !statSync(path).isDirectory()) return { status: "error", summary: `${path} is not a directory`, path };
  const exists = dir === path;
  try {
    const probe = join(dir, `.docchat-doctor-${process.pid}`);
    const fd = openSync(probe, "w");
    try {
      writeSync(fd, "ok");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch (e) {
    return { status: "error", summary: `${exists ? path : dir} is not writable: ${message(e)}`, path, exists, writable: false };
  }
  const fs = statfsSync(dir);
  const freeBytes = fs.bavail * fs.bsize;
  const { databaseInfo } = await import("../../store/sqlite/diagnostics.ts");
  const database = exists ? await databaseInfo(path) : null;
  const low = freeBytes < 512 * 1024 * 1024;
  const status: Status = database?.error ? "error" : low ? "warn" : "ok";
  const dbNote = config.databaseUrl
    ? "state in PostgreSQL (below); here only the extracted sqlite-vec library"
    : !database?.exists
      ? "no database yet (created on first use)"
      : database.error
        ? `database unreadable: ${database.error}`
        : `schema ${database.schema_version}/${database.latest_schema_version}`;
  return {
    status,
    summary: `${path} (${exists ? "writable" : "will be created"}, ${(freeBytes / 1073741824).toFixed(1)} GiB free${low ? " — low" : ""}; ${dbNote})`,
    path,
    exists,
    writable: true,
    free_bytes: freeBytes,
    database,
  };
}

export async function checkSqlite(config: Config): Promise<Check> {
  const { sqliteDiagnostics } = await import("../../store/sqlite/diagnostics.ts");
  // Extract vec0 where the server will load it from; a data dir that does not exist yet gets a scratch dir.
  const existing = existsSync(config.dataDir);
  const vecDir = existing ? config.dataDir : mkdtempSync(join(tmpdir(), "docchat-doctor-"));
  try {
    const d = await sqliteDiagnostics(vecDir);
    const ok = d.fts5.ok && d.sqlite_vec.ok;
    const parts = [
      `SQLite ${d.sqlite_version}`,
      d.fts5.ok ? "FTS5 ok" : `FTS5 missing (${d.fts5.error})`,
      d.sqlite_vec.ok ? `sqlite-vec ${d.sqlite_vec.version}` : `sqlite-vec failed (${d.sqlite_vec.error})`,
    ];
    return { status: ok ? "ok" : "error", summary: parts.join(", "), ...d };
  } finally {
    if (!existing) rmSync(vecDir, { recursive: true, force: true });
  }
}

/** Where node-llama-cpp comes from: lib/ next to a compiled binary, node_modules from source. */
export function nodeLlamaCppLocation(): string | null {
  if (Bun.isStandaloneExecutable) {
    const p = join(dirname(realpathSync(process.execPath)), "lib", "node_modules", "node-llama-cpp");
    return existsSync(join(p, "package.json")) ? p : null;
  }
  try {
    return dirname(Bun.resolveSync("node-llama-cpp/package.json", import.meta.dir));
  } catch {
    return null;
  }
}

export async function checkLlm(config: Config, opts: { load: boolean; offline: boolean }): Promise<Check> {
  // The same decision the server makes (DOCCHAT_LLM=auto: URL → openai, .gguf → llama, else extractive).
  const { llmBackendConfig } = await import("../../chat/llm-config.ts");
  const llmConfig = llmBackendConfig(config);
  const kind = llmConfig.kind;
  const configured = config.llm;
  if (kind === "extractive") {
    return { status: "ok", summary: "extractive — answers quote the best passages (no model configured)", configured, active: kind };
  }
  if (kind === "openai") {
    if (!config.llmUrl) return { status: "error", summary: "DOCCHAT_LLM=openai needs DOCCHAT_LLM_URL", configured, active: kind };
    const base = { configured, active: kind, url: config.llmUrl, model: config.llmModel || null };
    if (opts.offline) return { status: "ok", summary: `openai-compatible upstream ${config.llmUrl} (not contacted: --offline)`, ...base };
    try {
      const res = await timed(5000, config.llmUrl, (signal) =>
        fetch(`${config.llmUrl.replace(/\/+$/, "")}/models`, {
          signal,
          headers: config.llmApiKey ? { authorization: `Bearer ${config.llmApiKey}` } : {},
        }),
      );
      const body = (await readCappedText(res, 1024 * 1024)
        .then((t) => JSON.parse(t))
        .catch(() => null)) as { data?: { id?: string }[] } | null;
      const models = (body?.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === "string");
      if (!res.ok)
        return { status: "error", summary: `${config.llmUrl}/models answered HTTP ${res.status}`, ...base, http_status: res.status };
      const listed = config.llmModel ? models.includes(config.llmModel) : null;
      const status: Status = config.llmModel && listed === false ? "warn" : config.llmModel ? "ok" : "warn";
      const note = !config.llmModel
        ? "; set DOCCHAT_LLM_MODEL"
        : listed
          ? `; model ${config.llmModel} available`
          : `; model ${config.llmModel} not in its list`;
      return { status, summary: `openai-compatible upstream ${config.llmUrl} reachable${note}`, ...base, reachable: true, models };
    } catch (e) {
      return { status: "error", summary: `cannot reach ${config.llmUrl}: ${message(e)}`, ...base, reachable: false };
    }
  }
  const modelPath = resolve(llmConfig.modelPath ?? config.llmModel);
  const lib = nodeLlamaCppLocation();
  const base = { configured, active: kind, model: modelPath, node_llama_cpp: lib };
  if (!llmConfig.modelPath || !existsSync(modelPath)) return { status: "error", summary: `GGUF model not found: ${modelPath}`, ...base };
  if (!lib) {
    const hint = Bun.isStandaloneExecutable ? "copy the build's lib/ folder next to the docchat binary" : "run bun install";
    return { status: "error", summary: `node-llama-cpp is not available (${hint})`, ...base };
  }
  const size = `${(statSync(modelPath).size / 1048576).toFixed(0)} MiB`;
  if (!opts.load) return { status: "ok", summary: `local GGUF ${modelPath} (${size}); not loaded (doctor --load tries it)`, ...base };
  const { createLlmBackend } = await import("../../llm/create-backend.ts");
  const backend = createLlmBackend({ ...llmConfig, contextSize: 512, startTimeoutMs: 120_000, concurrency: undefined });
  try {
    const started = performance.now();
    let text = "";
    for await (const ev of backend.generate({ messages: [{ role: "user", content: "Say OK." }], maxTokens: 4, temperature: 0 })) {
      if (ev.type === "delta") text += ev.text;
    }
    const ms = Math.round(performance.now() - started);
    return {
      status: "ok",
      summary: `local GGUF ${modelPath} (${size}) loaded and generated in ${ms} ms`,
      ...base,
      load_ms: ms,
      sample: text,
    };
  } catch (e) {
    return { status: "error", summary: `local GGUF ${modelPath} failed: ${message(e)}`, ...base };
  } finally {
    await backend.close();
  }
}

export async function checkSmtp(config: Config, opts: { offline: boolean }): Promise<Check> {
  if (!config.smtpUrl) {
    return {
      status: "ok",
      summary: "off (DOCCHAT_SMTP_URL not set): leads are stored, owner mail goes to the log",
      active: "log",
      from: config.mailFrom,
    };
  }
  let server: string;
  try {
    const { describeSmtpUrl } = await import("../../mail/smtp.mailer.ts");
    server = describeSmtpUrl(config.smtpUrl);
  } catch (e) {
    return { status: "error", summary: `DOCCHAT_SMTP_URL is not a valid URL (${message(e)})`, active: "smtp" };
  }
  const base = { active: "smtp", server, from: config.mailFrom };
  if (opts.offline) return { status: "ok", summary: `${server} (not contacted: --offline)`, ...base };
  try {
    const nodemailer = await (await import("../../mail/smtp.mailer.ts")).loadNodemailer();
    const transport = nodemailer.createTransport({
      url: config.smtpUrl,
      connectionTimeout: 5000,
      greetingTimeout: 5000,
      socketTimeout: 5000,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    try {
      await timed(8000, server, () => transport.verify());
    } finally {
      transport.close();
    }
    return { status: "ok", summary: `${server} accepts connections (and credentials, if any)`, ...base, verified: true };
  } catch (e) {
    return { status: "error", summary: `${server}: ${message(e)}`, ...base, verified: false };
  }
}

/** PostgreSQL (DOCCHAT_DATABASE_URL): reachable, version ≥ 15, pgvector ≥ 0.8, migrations vs this binary's. */
export async function checkPostgres(config: Config): Promise<Check> {
  const { describePgUrl } = await import("../../store/postgres/pg-store.ts");
  const { MIN_SERVER_VERSION_NUM, MIN_VECTOR_VERSION, pgDiagnostics, versionAtLeast } = await import(
    "../../store/postgres/diagnostics.pg.ts"
  );
  const server = describePgUrl(config.databaseUrl);
  const d = await pgDiagnostics(config.databaseUrl);
  const base = { server, ...d };
  if (!d.reachable) return { status: "error", summary: `cannot reach PostgreSQL at ${server}: ${d.error}`, ...base };
  const problems: string[] = [];
  const warnings: string[] = [];
  if ((d.server_version_num ?? 0) < MIN_SERVER_VERSION_NUM) problems.push(`PostgreSQL ${d.server_version} is older than 15`);
  const vec = d.vector ?? { installed: null, available: null };
  if (vec.installed) {
    if (!versionAtLeast(vec.installed, MIN_VECTOR_VERSION))
      problems.push(`pgvector ${vec.installed} is older than ${MIN_VECTOR_VERSION} (ALTER EXTENSION vector UPDATE)`);
  } else if (vec.available) {
    if (!versionAtLeast(vec.available, MIN_VECTOR_VERSION))
      problems.push(`pgvector ${vec.available} on the server is older than ${MIN_VECTOR_VERSION}`);
    else
      warnings.push(
        `the vector extension (${vec.available}) is not created in this database yet: serve creates it at start if its role may, else run CREATE EXTENSION vector as a superuser`,
      );
  } else problems.push("the vector extension (pgvector) is not installed on the server");
  const s = d.schema;
  const schemaNote =
    s?.state === "empty"
      ? "schema not created yet (serve migrates at start)"
      : s?.state === "current"
        ? `schema current (${s.applied.length} migrations)`
        : s?.state === "behind"
          ? `schema behind this binary: migration(s) ${s.pending.join(", ")} pending (serve applies them at start)`
          : `schema AHEAD of this binary: migration(s) ${s?.unknown.join(", ")} come from a newer docchat; upgrade this binary`;
  if (s?.state === "ahead") problems.push(schemaNote);
  if (s?.state === "behind") warnings.push(schemaNote);
  const parts = [
    `PostgreSQL ${d.server_version} at ${server}`,
    vec.installed ? `pgvector ${vec.installed}` : null,
    s?.state === "ahead" || s?.state === "behind" ? null : schemaNote,
  ].filter(Boolean);
  const status: Status = problems.length > 0 ? "error" : warnings.length > 0 ? "warn" : "ok";
  return { status, summary: [...parts, ...problems, ...warnings].join("; "), ...base };
}

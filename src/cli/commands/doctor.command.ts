import { COMMIT, VERSION } from "../../version.ts";
import { type Command, defineCommand } from "../command.ts";
import { type Check, checkDataDir, checkLlm, checkPostgres, checkSmtp, checkSqlite } from "../doctor/checks.ts";
import { checkCircuits } from "../doctor/circuit-check.ts";
import { checkLanguages } from "../doctor/language-checks.ts";
import { checkEmbedder, checkReranker } from "../doctor/model-checks.ts";

const mark = { ok: "ok  ", warn: "WARN", error: "FAIL" } as const;

export const doctorCommand: Command = defineCommand({
  usage: "doctor [--data DIR] [--load] [--offline]",
  summary: "Check the data dir, SQLite (FTS5, sqlite-vec), PostgreSQL when configured, embedder, reranker, LLM backend and SMTP.",
  options: {
    load: { type: "boolean", doc: "also load the embedder, reranker and local model and run them once on a probe text (slower)" },
    offline: { type: "boolean", doc: "do not contact the model servers (LLM, embeddings, rerank) or the SMTP server" },
  },
  async run(ctx) {
    const load = ctx.values.load === true;
    const offline = ctx.values.offline === true;
    const { config } = ctx;
    const dataDir = await checkDataDir(config);
    const indexEmbedder = (dataDir.database as { index_embedder?: string | null } | null)?.index_embedder ?? null;
    const checks: Record<string, Check> = {
      data_dir: dataDir,
      sqlite: await checkSqlite(config),
      ...(config.databaseUrl ? { postgres: await checkPostgres(config) } : {}),
      languages: await checkLanguages(config),
      embedder: await checkEmbedder(config, { load, offline, indexEmbedder }),
      reranker: await checkReranker(config, { load, offline }),
      llm: await checkLlm(config, { load, offline }),
      circuits: checkCircuits(config),
      smtp: await checkSmtp(config, { offline }),
    };
    const ok = Object.values(checks).every((c) => c.status !== "error");
    const runtime = {
      bun: Bun.version,
      standalone: Bun.isStandaloneExecutable,
      platform: process.platform,
      arch: process.arch,
      exec: process.execPath,
    };
    if (ctx.json) {
      ctx.print({ ok, version: VERSION, commit: COMMIT, runtime, ...checks });
    } else {
      const lines = [
        `docchat ${VERSION} (${COMMIT}) on Bun ${runtime.bun}${runtime.standalone ? ", single binary" : ""}, ${runtime.platform}-${runtime.arch}`,
      ];
      for (const [name, c] of Object.entries(checks)) lines.push(`[${mark[c.status]}] ${name.padEnd(9)} ${c.summary}`);
      lines.push(ok ? "All checks passed." : "Some checks failed.");
      ctx.stdout(`${lines.join("\n")}\n`);
    }
    return ok ? 0 : 1;
  },
});

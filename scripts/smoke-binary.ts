/**
 * `bun run smoke`: builds dist/docchat, copies it alone into a temp dir (no node_modules anywhere near it, cwd
 * there, a clean environment) and drives it like an operator would: doctor, serve, CLI account + deployment,
 * the official `openai` client, a PDF and a CSV pushed, a grounded answer with sources, a refusal, SIGTERM →
 * exit 0 (after the MCP server over HTTP and stdio), restart on the same data dir, answer again; then two binary nodes on a throwaway PostgreSQL. Exits
 * non-zero naming the step that failed.
 *
 *   bun scripts/smoke-binary.ts [--no-build] [--keep]
 *
 * Steps are a plain list: add one by appending { name, run(ctx) } where it belongs.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import OpenAI from "openai";
import { createTinyModelFolder, MINILM_TOKENIZER_DIR } from "../test/fixtures/onnx/tiny-embedding-model.fixture.ts";
import { startPostgres } from "../test/helpers/postgres.ts";
import { type ServeProcess, startServeProcess } from "../test/helpers/serve-process.ts";
import { writePdf } from "../test/ingest/helpers/pdf-writer.ts";
import { buildBinary } from "./build-binary.ts";
import { mcpSmokeSteps } from "./smoke-mcp.ts";

const root = resolve(import.meta.dir, "..");

interface Ctx {
  work: string;
  bin: string;
  data: string;
  env: Record<string, string>;
  server?: ServeProcess;
  apiKey: string;
  deploymentId: string;
}

const openai = (ctx: Ctx) => new OpenAI({ baseURL: `${ctx.server?.url}/api/v1`, apiKey: ctx.apiKey, maxRetries: 0 });

type Step = { name: string; run: (ctx: Ctx) => Promise<string | undefined> };

class SmokeError extends Error {}
function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new SmokeError(message);
}

/** Runs the binary's CLI with --json and returns the one JSON object it printed. */
async function cli(ctx: Ctx, args: string[]): Promise<Record<string, unknown>> {
  const proc = Bun.spawn([ctx.bin, ...args, "--data", ctx.data, "--json"], { cwd: ctx.work, env: ctx.env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  check(code === 0, `docchat ${args.join(" ")} exited ${code}: ${err.trim()}`);
  try {
    return JSON.parse(out) as Record<string, unknown>;
  } catch {
    throw new SmokeError(`docchat ${args.join(" ")} did not print one JSON object: ${out.slice(0, 200)}`);
  }
}

async function startServer(ctx: Ctx): Promise<string> {
  const started = performance.now();
  ctx.server = await startServeProcess({ command: [ctx.bin], dataDir: ctx.data, cwd: ctx.work, env: ctx.env });
  return `${ctx.server.url} healthy after ${Math.round(performance.now() - started)} ms`;
}

async function stopServer(ctx: Ctx): Promise<string> {
  check(ctx.server, "no server running");
  const started = performance.now();
  const code = await ctx.server.stop("SIGTERM");
  check(code === 0, `serve exited with ${code} after SIGTERM`);
  ctx.server = undefined;
  return `exit 0 in ${Math.round(performance.now() - started)} ms`;
}

type Reply = { choices: { message: { content: string | null } }[]; sources?: string[]; refused?: boolean; chunks?: unknown[] };

async function ask(ctx: Ctx, question: string, path = "/chat/completions"): Promise<Reply> {
  return (await openai(ctx).post(path, { body: { model: ctx.deploymentId, messages: [{ role: "user", content: question }] } })) as Reply;
}

async function push(ctx: Ctx, name: string, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const form = new FormData();
  form.append("file", new File([bytes], name));
  const res = await fetch(`${ctx.server?.url}/api/v1/documents`, {
    method: "POST",
    headers: { authorization: `Bearer ${ctx.apiKey}` },
    body: form,
  });
  const body = (await res.json()) as { status?: string; chunk_count?: number; error?: unknown };
  check(res.status === 200 && body.status === "completed", `push ${name}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return `${name}: ${body.chunk_count} chunks`;
}

const HANDBOOK_PDF = new Uint8Array(
  writePdf([
    {
      lines: [
        "Larkspur Depot handbook.",
        "The Larkspur depot opens at 7:30 in the morning and closes at 18:00.",
        "Visitors sign in at the blue gate.",
      ],
    },
    { lines: ["Forklifts are charged overnight in bay 4.", "Lost badges are replaced by the night porter, Amara Okonkwo."] },
  ]),
);
const GERMAN_TXT = new TextEncoder().encode(
  "Kaution und Mietvertrag\n\nDer Mieter zahlt bei Vertragsbeginn eine Kaution in Höhe von drei Monatsmieten. Der Mietvertrag kann mit einer Frist von drei Monaten gekündigt werden.\n",
);
const CHINESE_TXT = new TextEncoder().encode(
  "租赁合同与押金\n\n租客在签订合同时支付相当于两个月房租的押金。押金在退房并交还钥匙后一个月内退还。\n",
);
const PRICES_CSV = new TextEncoder().encode(
  "product,price,warranty\nKettle K2,49 EUR,2 years\nToaster T9,35 EUR,1 year\nMixer M5,120 EUR,3 years\n",
);

const steps: Step[] = [
  {
    name: "--version prints version and build commit",
    async run(ctx) {
      const proc = Bun.spawn([ctx.bin, "--version"], { cwd: ctx.work, env: ctx.env, stdout: "pipe" });
      const out = (await new Response(proc.stdout).text()).trim();
      check(
        (await proc.exited) === 0 && /^docchat \d+\.\d+\.\d+ \(.+\)$/.test(out) && !out.includes("(source)"),
        `unexpected --version output: ${out}`,
      );
      return out;
    },
  },
  {
    name: "doctor: SQLite, FTS5, sqlite-vec, embedder, LLM, SMTP",
    async run(ctx) {
      const proc = Bun.spawn([ctx.bin, "doctor", "--offline", "--json", "--data", ctx.data], {
        cwd: ctx.work,
        env: ctx.env,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      const d = JSON.parse(out || "{}") as Record<string, { status?: string; active?: string }> & {
        ok?: boolean;
        runtime?: { standalone?: boolean };
      };
      check((await proc.exited) === 0 && d.ok === true, `doctor failed: ${out}${err}`);
      check(d.runtime?.standalone === true, "doctor does not report a standalone executable");
      // the analyzer's own check: Snowball stems, Intl.Segmenter's dictionaries and detection inside the binary
      check(d.languages?.status === "ok", `doctor: languages ${JSON.stringify(d.languages)}`);
      return `embedder ${d.embedder?.active}, llm ${d.llm?.active}, smtp ${d.smtp?.active}, analyzer ${(d.languages as { analyzer?: string }).analyzer}`;
    },
  },
  { name: "serve on a fresh data dir, /health 200", run: startServer },
  {
    name: "embedded web console and widget are served",
    async run(ctx) {
      const get = (path: string) => fetch(`${ctx.server?.url}${path}`);
      const shell = await get("/console/");
      const html = await shell.text();
      check(shell.status === 200 && /<html/i.test(html), `/console/ answered ${shell.status}`);
      for (const path of ["/console/app.js", "/console/app.css", "/widget.js"]) {
        const res = await get(path);
        const body = await res.text();
        check(res.status === 200 && body.length > 100, `${path} answered ${res.status} with ${body.length} bytes`);
      }
      return "console shell, app.js, app.css, widget.js";
    },
  },
  {
    name: "account and deployment through the binary's CLI",
    async run(ctx) {
      const acct = await cli(ctx, ["account", "create", "--email", "owner@example.com", "--tokens", "100000"]);
      check(acct.email === "owner@example.com", `account create: ${JSON.stringify(acct)}`);
      const dep = await cli(ctx, ["deployment", "create", "--account", "owner@example.com", "--name", "Depot handbook", "--publish"]);
      check(typeof dep.api_key === "string" && typeof dep.id === "string", `deployment create: ${JSON.stringify(dep)}`);
      ctx.apiKey = dep.api_key;
      ctx.deploymentId = dep.id;
      return String(dep.id);
    },
  },
  {
    name: "openai client: models.list() returns the deployment",
    async run(ctx) {
      const page = await openai(ctx).models.list();
      const ids = page.data.map((m) => m.id);
      check(ids.length === 1 && ids[0] === ctx.deploymentId, `models.list() returned ${JSON.stringify(ids)}`);
      return ids[0];
    },
  },
  {
    name: "openai client: a wrong key raises AuthenticationError(bad_key)",
    async run(ctx) {
      const bad = new OpenAI({ baseURL: `${ctx.server?.url}/api/v1`, apiKey: "dck_wrongwrongwrongwrongwrongwrong", maxRetries: 0 });
      try {
        await bad.models.list();
      } catch (e) {
        check(e instanceof OpenAI.AuthenticationError && e.code === "bad_key", `expected AuthenticationError(bad_key), got ${String(e)}`);
        return "401 bad_key";
      }
      throw new SmokeError("a wrong key listed models");
    },
  },
  { name: "push a PDF (parsed in the __parse-worker child)", run: (ctx) => push(ctx, "depot-handbook.pdf", HANDBOOK_PDF) },
  { name: "push a CSV", run: (ctx) => push(ctx, "prices.csv", PRICES_CSV) },
  {
    name: "push a German and a Chinese text",
    run: async (ctx) => `${await push(ctx, "mietvertrag.txt", GERMAN_TXT)}; ${await push(ctx, "zulin.txt", CHINESE_TXT)}`,
  },
  {
    name: "the binary stems and segments: a German plural and a Chinese question without spaces are answered",
    async run(ctx) {
      const de = await ask(ctx, "Wie viele Monatsmieten beträgt die Kaution für Mietverträge?");
      const deText = de.choices[0]?.message.content ?? "";
      check(de.sources?.includes("mietvertrag") && /drei Monatsmieten/.test(deText), `German: ${deText} ${JSON.stringify(de.sources)}`);
      const zh = await ask(ctx, "押金什么时候退还？");
      const zhText = zh.choices[0]?.message.content ?? "";
      check(zh.sources?.includes("zulin") && /押金/.test(zhText), `Chinese: ${zhText} ${JSON.stringify(zh.sources)}`);
      return `${JSON.stringify(deText.slice(0, 50))}, ${JSON.stringify(zhText.slice(0, 30))}`;
    },
  },
  {
    name: "grounded answer with sources (PDF)",
    async run(ctx) {
      const r = await ask(ctx, "When does the Larkspur depot open?");
      const text = r.choices[0]?.message.content ?? "";
      check(/7:30/.test(text), `answer does not contain the opening time: ${text}`);
      check(r.sources?.includes("depot-handbook") && r.refused !== true, `sources ${JSON.stringify(r.sources)}`);
      return `sources ${JSON.stringify(r.sources)}`;
    },
  },
  {
    name: "grounded answer with sources and chunks (CSV, with-sources endpoint)",
    async run(ctx) {
      const r = await ask(ctx, "What is the warranty of the Kettle K2?", "/chat/completions-with-sources");
      const text = r.choices[0]?.message.content ?? "";
      check(/2 years/.test(text), `answer does not contain the warranty: ${text}`);
      check(
        r.sources?.includes("prices") && Array.isArray(r.chunks) && r.chunks.length > 0,
        `sources ${JSON.stringify(r.sources)}, chunks ${r.chunks?.length}`,
      );
      return `sources ${JSON.stringify(r.sources)}, ${r.chunks.length} chunks`;
    },
  },
  {
    name: "openai client: responses.create (the Responses API), streamed",
    async run(ctx) {
      const stream = await openai(ctx).responses.create({
        model: ctx.deploymentId,
        input: "When does the Larkspur depot open?",
        stream: true,
      });
      let text = "";
      let last = "";
      for await (const ev of stream) {
        if (ev.type === "response.output_text.delta") text += ev.delta;
        last = ev.type;
      }
      check(/7:30/.test(text) && last === "response.completed", `answer ${JSON.stringify(text)}, last event ${last}`);
      return `${text.length} chars, ended with ${last}`;
    },
  },
  {
    name: "GET /api/v1/openapi.json without a key",
    async run(ctx) {
      const r = await fetch(`${ctx.server?.url}/api/v1/openapi.json`);
      const spec = (await r.json()) as { openapi?: string; paths?: Record<string, unknown> };
      check(
        r.status === 200 && spec.openapi === "3.1.0" && spec.paths?.["/api/v1/documents"],
        `status ${r.status}, openapi ${spec.openapi}`,
      );
      return `${Object.keys(spec.paths ?? {}).length} paths`;
    },
  },
  {
    name: "refusal for an unrelated question",
    async run(ctx) {
      const r = await ask(ctx, "What is the capital of Mongolia?");
      check((r.sources ?? []).length === 0 && r.refused !== false, `expected a refusal, got ${JSON.stringify(r).slice(0, 300)}`);
      return JSON.stringify(r.choices[0]?.message.content?.slice(0, 60));
    },
  },
  ...mcpSmokeSteps(check),
  { name: "SIGTERM → exit 0", run: stopServer },
  { name: "restart on the same data dir", run: startServer },
  {
    name: "answers again after the restart",
    async run(ctx) {
      const r = await ask(ctx, "Who replaces lost badges?");
      const text = r.choices[0]?.message.content ?? "";
      check(/Okonkwo/.test(text) && r.sources?.includes("depot-handbook"), `after restart: ${text} ${JSON.stringify(r.sources)}`);
      return `sources ${JSON.stringify(r.sources)}`;
    },
  },
  { name: "SIGTERM → exit 0 again", run: stopServer },
  {
    name: "ONNX embedder (embedded onnxruntime) in a Worker: serve with a model in models/, push, answer",
    async run(ctx) {
      if (!existsSync(MINILM_TOKENIZER_DIR)) return `skipped: no tokenizer files at ${MINILM_TOKENIZER_DIR}`;
      createTinyModelFolder({ parentDir: join(ctx.work, "models"), name: "tiny-minilm" });
      const data = join(ctx.work, "data-onnx");
      const env = { ...ctx.env, DOCCHAT_MODELS: join(ctx.work, "models") };
      const started = performance.now();
      const server = await startServeProcess({ command: [ctx.bin], dataDir: data, cwd: ctx.work, env });
      const loadMs = Math.round(performance.now() - started);
      try {
        const other: Ctx = { ...ctx, data, env, server };
        await cli(other, ["account", "create", "--email", "onnx@example.com", "--tokens", "1000"]);
        const dep = await cli(other, ["deployment", "create", "--account", "onnx@example.com", "--name", "Vectors", "--publish"]);
        Object.assign(other, { apiKey: String(dep.api_key), deploymentId: String(dep.id) });
        await push(other, "prices.csv", PRICES_CSV);
        const r = await ask(other, "How much is the Mixer M5?");
        check(
          /120 EUR/.test(r.choices[0]?.message.content ?? "") && r.sources?.includes("prices"),
          `answer: ${JSON.stringify(r).slice(0, 300)}`,
        );
      } finally {
        const code = await server.stop("SIGTERM");
        check(code === 0, `serve exited with ${code} after SIGTERM`);
      }
      return `model loaded, /health after ${loadMs} ms; answered with sources`;
    },
  },
  {
    name: "PostgreSQL: two binary nodes on one database (pgvector), a push through one answered by the other, doctor",
    async run(ctx) {
      const cluster = await startPostgres();
      const env = { ...ctx.env, DOCCHAT_DATABASE_URL: cluster.url };
      const nodes: ServeProcess[] = [];
      try {
        const data = join(ctx.work, "data-pg-cli");
        const other: Ctx = { ...ctx, data, env };
        await cli(other, ["account", "create", "--email", "pg@example.com", "--tokens", "1000"]);
        const dep = await cli(other, ["deployment", "create", "--account", "pg@example.com", "--name", "Shared", "--publish"]);
        Object.assign(other, { apiKey: String(dep.api_key), deploymentId: String(dep.id) });
        for (const n of [1, 2])
          nodes.push(await startServeProcess({ command: [ctx.bin], dataDir: join(ctx.work, `data-pg-${n}`), cwd: ctx.work, env }));
        await push({ ...other, server: nodes[0] }, "prices.csv", PRICES_CSV);
        const r = await ask({ ...other, server: nodes[1] }, "How much is the Mixer M5?");
        check(
          /120 EUR/.test(r.choices[0]?.message.content ?? "") && r.sources?.includes("prices"),
          `answer: ${JSON.stringify(r).slice(0, 300)}`,
        );
        const doctor = Bun.spawnSync([ctx.bin, "doctor", "--data", data], { cwd: ctx.work, env });
        const report = doctor.stdout.toString();
        check(/postgres .*pgvector 0\.\d+.*schema current/.test(report), `doctor: ${report.slice(0, 500)}`);
        return "pushed through node 1, answered on node 2 with sources; doctor: schema current";
      } finally {
        for (const n of nodes) check((await n.stop("SIGTERM")) === 0, "a PostgreSQL node did not exit 0 after SIGTERM");
        await cluster.stop();
      }
    },
  },
];

async function main(): Promise<number> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { "no-build": { type: "boolean" }, keep: { type: "boolean" } } });
  const t0 = performance.now();
  const built = join(root, "dist", process.platform === "win32" ? "docchat.exe" : "docchat");
  if (!values["no-build"]) await buildBinary({ llama: false });
  const work = mkdtempSync(join(tmpdir(), "docchat-smoke-"));
  const bin = join(work, "docchat");
  copyFileSync(built, bin);
  mkdirSync(join(work, "data"));
  // A clean environment: nothing from this repo's shell (DOCCHAT_*, NODE_PATH, BUN_*) leaks into the binary.
  const env: Record<string, string> = { PATH: "/usr/bin:/bin", HOME: work, TMPDIR: tmpdir(), LANG: "C.UTF-8" };
  const ctx: Ctx = {
    work,
    bin,
    data: join(work, "data"),
    env,
    apiKey: "",
    deploymentId: "",
  };
  let failed = false;
  for (const step of steps) {
    const started = performance.now();
    try {
      const detail = await step.run(ctx);
      console.log(`ok   ${step.name} (${Math.round(performance.now() - started)} ms)${detail ? ` — ${detail}` : ""}`);
    } catch (e) {
      failed = true;
      console.error(`FAIL ${step.name}: ${e instanceof Error ? e.message : String(e)}`);
      if (ctx.server) console.error(`--- server log (last lines) ---\n${ctx.server.log().split("\n").slice(-30).join("\n")}`);
      break;
    }
  }
  if (ctx.server) await ctx.server.stop("SIGKILL");
  if (values.keep) console.error(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
  console.log(`smoke ${failed ? "FAILED" : "passed"} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return failed ? 1 : 0;
}

process.exit(await main());

/**
 * `bun run build` → dist/docchat, one executable (bun build --compile), plus dist/lib/ with the parts that
 * cannot be embedded (node-llama-cpp, needed only for local GGUF models).
 *
 *   bun scripts/build-binary.ts [--target linux-x64|linux-arm64|darwin-arm64|darwin-x64|windows-x64]
 *                               [--outdir dist] [--no-llama]
 *
 * Embedded: all code, the SQL migrations (text imports), the sqlite-vec extension, onnxruntime's addon and
 * library, the pdf.js worker, every `*.worker.ts` and `*.lazy.ts` under src/ (as extra entry points), web assets.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { RUNTIME_HEAD_LIMIT } from "../src/server/pipeline/head-limit.ts";
import { nativePlugins } from "./build/plugins.ts";
import { shipNodeLlamaCpp } from "./build/ship-llama.ts";
import { hostTarget, type TargetName, targets } from "./build/targets.ts";

const root = resolve(import.meta.dir, "..");

export interface BuildResult {
  outfile: string;
  libDir: string | null;
  binaryBytes: number;
  libBytes: number;
  version: string;
  commit: string;
  ms: number;
}

/**
 * Worker bodies are separate entry points: `new Worker(new URL("./x.worker.ts", import.meta.url))` finds them. So are
 * heavy libraries a process may never need (`*.lazy.ts`, imported by `new URL(...)`): the bundle every start loads
 * (and parses) stays without them. The binary cannot split code otherwise (no `splitting` with `compile`).
 */
function workerEntrypoints(dir = join(root, "src")): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...workerEntrypoints(p));
    else if (name.endsWith(".worker.ts") || name.endsWith(".lazy.ts")) out.push(p);
  }
  return out;
}

async function gitCommit(): Promise<string> {
  const proc = Bun.spawn(["git", "describe", "--always", "--dirty", "--abbrev=12"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  const text = (await new Response(proc.stdout).text()).trim();
  return (await proc.exited) === 0 && text ? text : "unknown";
}

export async function buildBinary(
  opts: { target?: TargetName; outdir?: string; llama?: boolean; log?: (s: string) => void } = {},
): Promise<BuildResult> {
  const started = performance.now();
  const log = opts.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const name = opts.target ?? hostTarget();
  const target = targets[name];
  if (!target) throw new Error(`unknown target ${name}; one of ${Object.keys(targets).join(", ")}`);
  const outdir = resolve(root, opts.outdir ?? "dist");
  const outfile = join(outdir, target.exe);
  const version = ((await Bun.file(join(root, "package.json")).json()) as { version: string }).version;
  const commit = await gitCommit();
  const workers = workerEntrypoints();
  const names = workers.map((w) => w.split("/").pop());
  if (new Set(names).size !== names.length)
    throw new Error(`worker and lazy-module file names must be unique (they are flattened in the binary): ${names.join(", ")}`);

  const result = await Bun.build({
    entrypoints: [join(root, "src/main.ts"), ...workers],
    root: join(root, "src"),
    // Flat names: a worker referenced as new URL("./x.worker.ts", import.meta.url) from any bundled module
    // resolves to /$bunfs/root/x.worker.ts, which is where it lands.
    naming: { entry: "[name].[ext]" },
    compile: {
      target: target.bun,
      outfile,
      // Needed so node-llama-cpp (loaded from lib/ at run time) can resolve its own dependencies.
      autoloadPackageJson: true,
      // The binary reads only its environment and flags, never a .env or bunfig.toml from the working directory.
      autoloadDotenv: false,
      autoloadBunfig: false,
      // Bun's own head limit answers a bare 431; raised so the server's limit (12 KiB, in the error shape) applies.
      execArgv: [`--max-http-header-size=${RUNTIME_HEAD_LIMIT}`],
    },
    minify: true,
    sourcemap: "linked",
    bytecode: true,
    format: "esm",
    define: {
      DOCCHAT_BUILD_VERSION: JSON.stringify(version),
      DOCCHAT_BUILD_COMMIT: JSON.stringify(commit),
    },
    plugins: await nativePlugins(target),
  });
  if (!result.success) {
    for (const l of result.logs) log(String(l));
    throw new Error("bun build --compile failed");
  }
  let libDir: string | null = null;
  let libBytes = 0;
  if (opts.llama !== false) {
    const shipped = shipNodeLlamaCpp(outdir, target);
    libDir = shipped.libDir;
    libBytes = shipped.bytes;
  }
  const binaryBytes = statSync(outfile).size;
  const ms = Math.round(performance.now() - started);
  log(
    `built ${relative(process.cwd(), outfile)} (${name}, ${(binaryBytes / 1048576).toFixed(1)} MiB, docchat ${version} ${commit}) in ${ms} ms`,
  );
  if (libDir)
    log(
      `shipped ${relative(process.cwd(), libDir)} (node-llama-cpp, ${(libBytes / 1048576).toFixed(1)} MiB) — keep it next to the binary for local GGUF models`,
    );
  return { outfile, libDir, binaryBytes, libBytes, version, commit, ms };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { target: { type: "string" }, outdir: { type: "string" }, "no-llama": { type: "boolean" } },
  });
  try {
    await buildBinary({ target: values.target as TargetName | undefined, outdir: values.outdir, llama: !values["no-llama"] });
  } catch (e) {
    const errors = e instanceof AggregateError ? e.errors : [];
    for (const err of errors) process.stderr.write(`${String(err)}\n`);
    process.stderr.write(`build failed: ${(e as Error).message}\n`);
    process.exit(1);
  }
}

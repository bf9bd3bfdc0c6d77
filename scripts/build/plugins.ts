/**
 * Bundler plugins that make the native dependencies work inside one `bun build --compile` executable.
 *
 * - sharp: transformers.js imports it at top level for image pipelines (and refuses to load without it); docchat
 *   only embeds text, and sharp's libvips addon cannot load from the bundle. Replaced by a function that throws
 *   if anything ever tries to decode an image.
 * - onnxruntime-node: transformers.js loads it through `createRequire(import.meta.url)` and onnxruntime-node loads
 *   its addon through a template-literal `require`, so the bundler sees neither. Both are rewritten to static
 *   imports; the addon and the shared library it links against (RUNPATH $ORIGIN) are embedded as files and, on
 *   first use, written together into a private temp dir (mkdtemp, 0700), loaded, and deleted again.
 * - node-llama-cpp: a package tree with ~120 dependencies and per-CPU llama.cpp libraries that llama.cpp picks
 *   and dlopens at run time; it cannot live in the bundle. It ships as `lib/node_modules` next to the
 *   executable and the import is rewritten to load it from there, lazily, so the binary runs without it.
 * - elysia: the TypeBox checkers its t.Numeric/t.Integer/t.Date build at declaration are compiled on first use.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BunPlugin } from "bun";
import type { TargetSpec } from "./targets.ts";

const root = resolve(import.meta.dir, "../..");
const nm = (...p: string[]) => join(root, "node_modules", ...p);

function replaceOnce(text: string, pattern: RegExp | string, by: string, file: string): string {
  const found = typeof pattern === "string" ? text.includes(pattern) : pattern.test(text);
  if (!found)
    throw new Error(
      `build plugin: expected pattern not found in ${file} (${pattern}); the dependency changed, update scripts/build/plugins.ts`,
    );
  return text.replace(pattern, by);
}

const sharpStub: BunPlugin = {
  name: "docchat-sharp-stub",
  setup(build) {
    build.onResolve({ filter: /^sharp$/ }, () => ({ path: "sharp", namespace: "docchat-stub" }));
    build.onLoad({ filter: /.*/, namespace: "docchat-stub" }, () => ({
      contents: 'export default function sharp() { throw new Error("image processing is not available in the docchat binary"); }\n',
      loader: "js",
    }));
  },
};

function onnxRuntime(target: TargetSpec): BunPlugin {
  const dir = nm("onnxruntime-node", "bin", "napi-v6", target.ortDir);
  const files = target.ortFiles.map((f) => join(dir, f));
  return {
    name: "docchat-onnxruntime",
    setup(build) {
      build.onLoad({ filter: /@huggingface[\\/]transformers[\\/]dist[\\/]transformers\.node\.mjs$/ }, ({ path }) => {
        const text = readFileSync(path, "utf8");
        const out = replaceOnce(text, 'requireFromHere("onnxruntime-node")', "__docchatOrtNode", path);
        return { contents: `import __docchatOrtNode from "onnxruntime-node";\n${out}`, loader: "js" };
      });
      build.onLoad({ filter: /onnxruntime-node[\\/]dist[\\/]binding\.js$/ }, ({ path }) => {
        const text = readFileSync(path, "utf8");
        const pattern = /require\(`\.\.\/bin\/napi-v6\/\$\{process\.platform\}\/\$\{process\.arch\}\/onnxruntime_binding\.node`\)/;
        return { contents: replaceOnce(text, pattern, 'require("docchat:onnxruntime-binding").default', path), loader: "js" };
      });
      build.onResolve({ filter: /^docchat:onnxruntime-binding$/ }, () => ({ path: "onnxruntime-binding", namespace: "docchat-ort" }));
      build.onLoad({ filter: /.*/, namespace: "docchat-ort" }, () => {
        for (const f of files) if (!existsSync(f)) throw new Error(`onnxruntime native file missing for this target: ${f}`);
        const imports = files.map((f, i) => `import f${i} from ${JSON.stringify(f)} with { type: "file" };`).join("\n");
        const writes = target.ortFiles
          .map((name, i) => `  writeFileSync(join(dir, ${JSON.stringify(name)}), readFileSync(f${i}));`)
          .join("\n");
        return {
          loader: "js",
          contents: `import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
${imports}
const dir = mkdtempSync(join(tmpdir(), "docchat-ort-"));
let binding;
try {
${writes}
  binding = createRequire(import.meta.url)(join(dir, "onnxruntime_binding.node"));
} finally {
  try { rmSync(dir, { recursive: true, force: true }); } catch {}
}
export default binding;
`,
        };
      });
    },
  };
}

/** The named exports of node-llama-cpp, so the lazy stand-in can re-export exactly them. */
async function llamaExports(): Promise<string[]> {
  const mod = (await import("node-llama-cpp")) as Record<string, unknown>;
  return Object.keys(mod).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== "default");
}

const llamaFromLibDir: BunPlugin = {
  name: "docchat-node-llama-cpp",
  setup(build) {
    build.onResolve({ filter: /^node-llama-cpp$/ }, () => ({ path: "node-llama-cpp", namespace: "docchat-llama" }));
    build.onLoad({ filter: /.*/, namespace: "docchat-llama" }, async () => {
      const names = await llamaExports();
      return {
        loader: "js",
        contents: `import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
const entry = join(dirname(realpathSync(process.execPath)), "lib", "node_modules", "node-llama-cpp", "dist", "index.js");
if (!existsSync(entry)) {
  throw new Error("node-llama-cpp is not installed next to the docchat executable (expected " + entry + "). Copy the lib/ folder from the build next to the binary to run local GGUF models.");
}
const m = await import(entry);
export const { ${names.join(", ")} } = m;
export default m.default;
`,
      };
    });
  },
};

/**
 * Elysia's t.Numeric, t.Integer, t.Date... compile a TypeBox checker when the schema is declared; docchat declares
 * about fifty, so every start (and its first /health) paid for ~50 compilations whose checkers only a request with
 * such a value uses. In the binary each checker is compiled on its first use instead: same checker, same errors.
 */
const elysiaLazyCompile: BunPlugin = {
  name: "docchat-elysia-lazy-compile",
  setup(build) {
    build.onLoad({ filter: /elysia[\\/]dist[\\/]type-system[\\/]utils\.mjs$/ }, ({ path }) => {
      const text = replaceOnce(readFileSync(path, "utf8"), "const compile = (schema) => {", "const compileNow = (schema) => {", path);
      const lazy = `
const compile = (schema) => {
  let c;
  const get = () => (c ??= compileNow(schema));
  return { Check: (v) => get().Check(v), Decode: (v) => get().Decode(v), Error: (v) => get().Error(v), Errors: (v) => get().Errors(v) };
};
`;
      return { contents: `${text}${lazy}`, loader: "js" };
    });
  },
};

export async function nativePlugins(target: TargetSpec): Promise<BunPlugin[]> {
  return [sharpStub, onnxRuntime(target), llamaFromLibDir, elysiaLazyCompile];
}

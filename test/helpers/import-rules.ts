/**
 * The import directions the architecture guide states, as a check that runs (test/import-rules.test.ts). Reads
 * source files as text: every static, dynamic and re-export import of a relative path, and whether it is type-only.
 *
 * From the bottom up (an import may only point down, or sideways within one rank when it closes no circle):
 *   0 errors/ config/ shared/ net/ log.ts version.ts — building blocks every part may use
 *   1 store/ — the contract (others import contract/ only); sqlite/ and postgres/ never import each other
 *   2 models/ · 3 llm/ ingest/ mail/ metrics/ · 4 rag/ — capabilities (rag/ uses llm/ interfaces, never the reverse)
 *   5 chat/ documents/ owner/ visitor/ eval/ mcp/ webhooks/ — features
 *   6 app.ts — the composition root, the one place outside the edges that picks a store driver
 *   7 server/ cli/ web/ · 8 main.ts — the edges; nothing below imports them (web/ is browser code: it imports
 *     only web/, the owner API's wire types from server's *.schemas.ts, type-only, and the visitor message table
 *     shared/visitor-messages.ts, which imports nothing)
 * Also: routes reach the store only through services (no `.repos.` in server/), only store/ imports bun:sqlite,
 * only config/ (and main.ts, which hands the environment over) reads process.env, and no two files import each
 * other through any chain.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const RANKS: [prefix: string, rank: number][] = [
  ["src/errors/", 0],
  ["src/config/", 0],
  ["src/shared/", 0],
  ["src/net/", 0],
  ["src/log.ts", 0],
  ["src/version.ts", 0],
  // the visitor's fixed messages per language: a table that imports nothing, shared by the server and the widget
  ["src/shared/visitor-messages.ts", 0],
  ["src/store/", 1],
  ["src/models/", 2],
  ["src/llm/", 3],
  ["src/ingest/", 3],
  ["src/mail/", 3],
  ["src/metrics/", 3],
  ["src/rag/", 4],
  // which language a visitor reads: from the request and the question (rag's language detection)
  ["src/i18n/visitor-language.ts", 4],
  ["src/chat/", 5],
  ["src/documents/", 5],
  ["src/owner/", 5],
  ["src/visitor/", 5],
  ["src/eval/", 5],
  ["src/mcp/", 5],
  ["src/webhooks/", 5],
  ["src/app.ts", 6],
  ["src/server/", 7],
  ["src/cli/", 7],
  ["src/web/", 7],
  ["src/main.ts", 8],
];

/** The part of the house a file is in: `src/rag`, `src/store/sqlite`, `src/app.ts`, … (null outside src/). */
export function areaOf(file: string): string | null {
  if (!file.startsWith("src/")) return null;
  const parts = file.split("/");
  if (parts.length === 2) return file;
  if (parts[1] === "store" && parts.length > 3) return `src/store/${parts[2]}`;
  return `src/${parts[1]}`;
}

export function rankOf(file: string): number | null {
  return RANKS.find(([prefix]) => file === prefix || file.startsWith(prefix))?.[1] ?? null;
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?["'](\.{1,2}\/[^"']+)["']/g;
const DYNAMIC = /import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** Relative imports of one file (paths relative to the repository, as given). */
export function importsOf(file: string, source: string): ImportEdge[] {
  const out: ImportEdge[] = [];
  const resolve = (spec: string) => normalize(join(dirname(file), spec));
  for (const m of source.matchAll(IMPORT)) {
    const clause = m[2] ?? "";
    const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1];
    const allTypes = names?.split(",").every((n) => n.trim() === "" || n.trim().startsWith("type ")) ?? false;
    out.push({ from: file, to: resolve(m[3] as string), typeOnly: m[1] !== undefined || (clause !== "" && allTypes) });
  }
  for (const m of source.matchAll(DYNAMIC)) out.push({ from: file, to: resolve(m[1] as string), typeOnly: false });
  return out;
}

/** Why an import breaks a rule, or null when it keeps them. */
function edgeViolation(e: ImportEdge): string | null {
  const [from, to] = [areaOf(e.from), areaOf(e.to)];
  if (!from || !to || from === to) return null;
  if (from === "src/web") {
    if (e.to === "src/shared/visitor-messages.ts") return null;
    return e.typeOnly && /^src\/server\/.*\.schemas\.ts$/.test(e.to) ? null : "web/ imports only web/ (and the API's wire types)";
  }
  if (to === "src/web" && from !== "src/server") return "only server/ serves web/";
  const inStore = (a: string) => a.startsWith("src/store");
  if (inStore(to) && !inStore(from) && to !== "src/store/contract" && from !== "src/app.ts" && from !== "src/cli") {
    return "outside store/, only app.ts and cli/ pick a driver: import store/contract/";
  }
  if (inStore(from) && inStore(to)) {
    if (from === "src/store/contract") return "the contract imports nothing from the drivers";
    if (from === "src/store/sqlite" && to === "src/store/postgres") return "the SQLite driver never imports the PostgreSQL one";
    if (from === "src/store/postgres" && to === "src/store/sqlite") return "the PostgreSQL driver never imports the SQLite one";
    return null;
  }
  const [rf, rt] = [rankOf(e.from), rankOf(e.to)];
  if (rf === null || rt === null) return `no rank for ${rf === null ? e.from : e.to}`;
  if (from === "src/cli" && to === "src/server") return null; // `serve` starts the server; the CLI prints its views
  if (rt > rf) return "runs back up the house";
  return null;
}

/** Every cycle of files (strongly connected components of more than one file, or a file importing itself). */
export function cycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (next.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Text rules: what only one part of the house may do. */
function textViolations(file: string, source: string): string[] {
  const out: string[] = [];
  if (!file.startsWith("src/")) return out;
  if (file.startsWith("src/server/") && /\.repos\./.test(source)) out.push(`${file}: routes call services, never services.repos`);
  if (!file.startsWith("src/store/") && /from\s+["']bun:sqlite["']/.test(source)) out.push(`${file}: only store/ touches SQLite`);
  // BUN_BE_BUN is Bun's own runtime switch (a compiled binary acting as bun), not docchat configuration
  if (!file.startsWith("src/config/") && file !== "src/main.ts" && /process\.env(?!\.BUN_BE_BUN)/.test(source))
    out.push(`${file}: only config/ reads the environment`);
  return out;
}

/** Every broken rule in a set of files (path relative to the repository → source text); [] when the house is in order. */
export function checkImports(files: Map<string, string>): string[] {
  const edges = [...files].flatMap(([file, source]) => importsOf(file, source)).filter((e) => files.has(e.to));
  const problems: string[] = [];
  for (const e of edges) {
    const why = edgeViolation(e);
    if (why) problems.push(`${e.from} → ${e.to}: ${why}`);
  }
  for (const c of cycles(edges)) problems.push(`circle: ${c.join(" → ")}`);
  // web/'s one way out (the API's wire types, type-only) is not a dependency of the server it is served by
  const areaEdges = edges.flatMap((e) => {
    const [a, b] = [areaOf(e.from), areaOf(e.to)];
    return a && b && a !== b && a !== "src/web" ? [{ from: a, to: b, typeOnly: e.typeOnly }] : [];
  });
  for (const c of cycles(areaEdges)) problems.push(`circle between parts: ${c.join(" → ")}`);
  for (const [file, source] of files) problems.push(...textViolations(file, source));
  return problems;
}

/** The repository's source files, as checkImports reads them. */
export function repositoryFiles(root: string, under: string[]): Map<string, string> {
  const listed = Bun.spawnSync(["git", "ls-files", "-co", "--exclude-standard", ...under], { cwd: root }).stdout.toString();
  const files = new Map<string, string>();
  for (const f of listed.split("\n"))
    if (/\.(ts|tsx)$/.test(f) && existsSync(join(root, f))) files.set(f, readFileSync(join(root, f), "utf8"));
  return files;
}

import { readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { Services } from "../../app.ts";
import { reindexKeywords } from "../../documents/keyword-reindex.ts";
import { reindexVectors } from "../../documents/vector-index.ts";
import { appError, isAppError } from "../../errors/index.ts";
import { documentView } from "../../server/routes/documents/documents.routes.ts";
import { type Command, type CommandContext, defineCommand } from "../command.ts";
import { createProgressBar } from "../progress-bar.ts";

/** Extensions picked up when a folder is given; a file named on the command line is always tried (its type is sniffed). */
const DOCUMENT_EXTENSIONS = /\.(pdf|docx|txt|csv|tsv|md|markdown|text)$/i;

/** The files to add: named files as given, folders expanded (sorted; sub-folders only with --recursive). */
export function expandPaths(paths: string[], recursive: boolean): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (recursive && !entry.name.startsWith(".")) walk(path, depth + 1);
      } else if (entry.isFile() && DOCUMENT_EXTENSIONS.test(entry.name) && !entry.name.startsWith(".")) files.push(path);
    }
  };
  for (const path of paths) {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) missing.push(path);
    else if (st.isDirectory()) walk(path, 0);
    else files.push(path);
  }
  return { files, missing };
}

function need(ctx: CommandContext, i: number, what: string): string {
  const v = ctx.positionals[i];
  if (!v) throw appError("bad_request", { message: `${what} is required.`, param: what });
  return v;
}

/** Trains in this process until the queue is empty, with a progress bar on a terminal. */
async function trainHere(s: Services, ctx: CommandContext, deploymentId: string) {
  const counts = () => s.repos.documents.statusCounts(deploymentId);
  const start = await counts();
  const bar = createProgressBar(ctx.status, { total: start.queued + start.processing, label: "training" });
  const off = s.training.onChange(() => {
    counts()
      .then((c) => bar.set({ done: start.queued + start.processing - c.queued - c.processing, failed: c.failed - start.failed }))
      .catch(() => {});
  });
  try {
    await s.embedder();
    await s.training.runUntilIdle();
  } finally {
    off();
    bar.finish();
  }
}

export const documentsCommands: Command[] = [
  defineCommand({
    usage: "documents add ID FILE|DIR... [--recursive] [--no-train] [--wait] [--append]",
    summary:
      "Add PDF, DOCX, TXT or CSV files (or folders of them) to a deployment (a file with the same name is replaced unless --append).",
    options: {
      recursive: { type: "boolean", short: "r", doc: "also add the files in sub-folders of each folder given" },
      "no-train": { type: "boolean", doc: "store only; train later with `docchat train`" },
      wait: { type: "boolean", doc: "train now, in this process, and wait until done" },
      append: { type: "boolean", doc: "keep earlier documents of the same name" },
    },
    async run(ctx) {
      const id = need(ctx, 0, "deployment ID");
      const paths = ctx.positionals.slice(1);
      if (paths.length === 0) throw appError("bad_request", { message: "At least one FILE or DIR is required.", param: "file" });
      const s = await ctx.services();
      await s.deployments.getOrThrow(id);
      const { files, missing } = expandPaths(paths, ctx.values.recursive === true);
      const results: Record<string, unknown>[] = missing.map((path) => ({
        file: path,
        error: { code: "not_found", message: "No such file or folder." },
      }));
      let failed = missing.length;
      const bar = createProgressBar(ctx.status, { total: files.length, label: "adding" });
      const added: (Record<string, unknown> | undefined)[] = new Array(files.length);
      const train = ctx.values["no-train"] !== true;
      await s.documents.pushMany(
        files.map((path) => ({ deploymentId: id, name: basename(path), file: path, train, replace: ctx.values.append !== true })),
        {
          // two documents in flight per parser process keep every process busy
          concurrency: s.parsePool.size * 2,
          trainHere: train && ctx.values.wait === true,
          onResult(i, r) {
            const path = files[i] as string;
            if (r.ok) {
              added[i] = { file: path, ...documentView(r.result.document), unchanged: r.result.unchanged };
              bar.tick({ pages: r.result.document.pages });
              return;
            }
            if (!isAppError(r.error)) throw r.error;
            failed++;
            added[i] = { file: path, error: { code: r.error.code, message: r.error.message } };
            bar.tick({ failed: true });
          },
        },
      );
      bar.finish();
      for (const r of added) if (r) results.push(r);
      // with --wait pushMany trained alongside; anything else still queued for this deployment is trained now
      if (ctx.values.wait && train) await trainHere(s, ctx, id);
      const docs = [];
      for (const r of results) docs.push(typeof r.id === "string" ? { ...r, ...documentView(await s.documents.getOrThrow(r.id, id)) } : r);
      ctx.print({ deployment: id, documents: docs, training_status: (await s.deployments.getOrThrow(id)).trainingStatus });
      return failed > 0 ? 1 : 0;
    },
  }),
  defineCommand({
    usage: "documents list ID",
    summary: "List a deployment's documents with their training status.",
    options: {},
    async run(ctx) {
      const id = need(ctx, 0, "deployment ID");
      const s = await ctx.services();
      await s.deployments.getOrThrow(id);
      ctx.print({ deployment: id, documents: (await s.documents.list(id)).map(documentView) });
      return 0;
    },
  }),
  defineCommand({
    usage: "documents remove ID DOC",
    summary: "Remove a document and its index entries.",
    options: {},
    async run(ctx) {
      const id = need(ctx, 0, "deployment ID");
      const doc = need(ctx, 1, "document ID");
      const s = await ctx.services();
      await s.documents.remove(doc, id);
      ctx.print({ deployment: id, id: doc, deleted: true });
      return 0;
    },
  }),
  defineCommand({
    usage: "train ID [--wait]",
    summary: "Queue a deployment's untrained or failed documents (with --wait: train now and wait).",
    options: { wait: { type: "boolean", doc: "train in this process and wait until done" } },
    async run(ctx) {
      const id = need(ctx, 0, "deployment ID");
      const s = await ctx.services();
      await s.deployments.getOrThrow(id);
      const queued = await s.documents.train(id);
      if (ctx.values.wait) await trainHere(s, ctx, id);
      const d = await s.deployments.getOrThrow(id);
      ctx.print({ deployment: id, queued, training_status: d.trainingStatus, documents: await s.repos.documents.statusCounts(id) });
      return 0;
    },
  }),
  defineCommand({
    usage: "reindex [--keywords-only]",
    summary:
      "Rebuild every chunk's vector with the configured embedder (after changing DOCCHAT_EMBEDDER or the model), and finish any keyword index re-analysis (an upgrade, pinned languages) now.",
    options: { "keywords-only": { type: "boolean", doc: "only re-analyze keyword indexes that need it; leave the vectors" } },
    async run(ctx) {
      const s = await ctx.services();
      const keywords = await reindexKeywords(
        {
          index: s.repos.chunkIndex,
          pinnedLanguages: async (id) => (await s.repos.deployments.findById(id))?.languages ?? [],
        },
        {
          onProgress: (p) => ctx.progress(`keyword index ${p.deploymentId}: ${p.done}/${p.total} chunks (${p.left} deployments after it)`),
        },
      );
      if (ctx.values["keywords-only"]) {
        ctx.print({ keyword_chunks: keywords });
        return 0;
      }
      const { createEmbedder, embedderConfig } = await import("../../rag/embedders/create-embedder.ts");
      const e = await createEmbedder(embedderConfig(ctx.config));
      const n = await reindexVectors(s.repos.chunkIndex, e, { onProgress: (d, t) => ctx.progress(`reindex: ${d}/${t}`) });
      await e?.close?.();
      ctx.print({ chunks: n, embedder: e ? `${e.id}@${e.dimension}` : "none", keyword_chunks: keywords });
      return 0;
    },
  }),
];

import { basename } from "node:path";
import type { Services } from "../../app.ts";
import { reindexVectors } from "../../documents/vector-index.ts";
import { appError, isAppError } from "../../errors/index.ts";
import { documentView } from "../../server/routes/documents.routes.ts";
import type { Command, CommandContext } from "../command.ts";

function need(ctx: CommandContext, i: number, what: string): string {
  const v = ctx.positionals[i];
  if (!v) throw appError("bad_request", { message: `${what} is required.`, param: what });
  return v;
}

/** Trains in this process until the queue is empty, reporting progress on a terminal. */
async function trainHere(s: Services, ctx: CommandContext, deploymentId: string) {
  const off = s.training.onChange(() => {
    const c = s.repos.documents.statusCounts(deploymentId);
    ctx.progress(`training: ${c.completed} completed, ${c.failed} failed, ${c.queued + c.processing} to go`);
  });
  await s.embedder();
  await s.training.runUntilIdle();
  off();
}

export const documentsCommands: Command[] = [
  {
    path: ["documents", "add"],
    usage: "documents add ID FILE... [--no-train] [--wait] [--append]",
    summary: "Add PDF, DOCX, TXT or CSV files to a deployment (a file with the same name is replaced unless --append).",
    options: {
      "no-train": { type: "boolean", doc: "store only; train later with `docchat train`" },
      wait: { type: "boolean", doc: "train now, in this process, and wait until done" },
      append: { type: "boolean", doc: "keep earlier documents of the same name" },
    },
    async run(ctx) {
      const id = need(ctx, 0, "deployment ID");
      const files = ctx.positionals.slice(1);
      if (files.length === 0) throw appError("bad_request", { message: "At least one FILE is required.", param: "file" });
      const s = await ctx.services();
      s.deployments.getOrThrow(id);
      const results: Record<string, unknown>[] = [];
      let failed = 0;
      for (const path of files) {
        const file = Bun.file(path);
        if (!(await file.exists())) {
          failed++;
          results.push({ file: path, error: { code: "not_found", message: "No such file." } });
          continue;
        }
        try {
          const r = await s.documents.push({ deploymentId: id, name: basename(path), bytes: new Uint8Array(await file.arrayBuffer()), train: ctx.values["no-train"] !== true, replace: ctx.values.append !== true }, { waitMs: 0 });
          results.push({ file: path, ...documentView(r.document), unchanged: r.unchanged });
          ctx.progress(`added ${path} (${r.document.kind})`);
        } catch (e) {
          if (!isAppError(e)) throw e;
          failed++;
          results.push({ file: path, error: { code: e.code, message: e.message } });
        }
      }
      if (ctx.values.wait && ctx.values["no-train"] !== true) await trainHere(s, ctx, id);
      const docs = results.map((r) => (typeof r.id === "string" ? { ...r, ...documentView(s.documents.getOrThrow(r.id, id)) } : r));
      ctx.print({ deployment: id, documents: docs, training_status: s.deployments.getOrThrow(id).trainingStatus });
      return failed > 0 ? 1 : 0;
    },
  },
  {
    path: ["documents", "list"],
    usage: "documents list ID",
    summary: "List a deployment's documents with their training status.",
    options: {},
    async run(ctx) {
      const id = need(ctx, 0, "deployment ID");
      const s = await ctx.services();
      s.deployments.getOrThrow(id);
      ctx.print({ deployment: id, documents: s.documents.list(id).map(documentView) });
      return 0;
    },
  },
  {
    path: ["documents", "remove"],
    usage: "documents remove ID DOC",
    summary: "Remove a document and its index entries.",
    options: {},
    async run(ctx) {
      const id = need(ctx, 0, "deployment ID");
      const doc = need(ctx, 1, "document ID");
      const s = await ctx.services();
      s.documents.remove(doc, id);
      ctx.print({ deployment: id, id: doc, deleted: true });
      return 0;
    },
  },
  {
    path: ["train"],
    usage: "train ID [--wait]",
    summary: "Queue a deployment's untrained or failed documents (with --wait: train now and wait).",
    options: { wait: { type: "boolean", doc: "train in this process and wait until done" } },
    async run(ctx) {
      const id = need(ctx, 0, "deployment ID");
      const s = await ctx.services();
      s.deployments.getOrThrow(id);
      const queued = s.documents.train(id);
      if (ctx.values.wait) await trainHere(s, ctx, id);
      const d = s.deployments.getOrThrow(id);
      ctx.print({ deployment: id, queued, training_status: d.trainingStatus, documents: s.repos.documents.statusCounts(id) });
      return 0;
    },
  },
  {
    path: ["reindex"],
    usage: "reindex",
    summary: "Rebuild every chunk's vector with the configured embedder (after changing DOCCHAT_EMBEDDER or the model).",
    options: {},
    async run(ctx) {
      const s = await ctx.services();
      const { createEmbedder, embedderConfig } = await import("../../rag/embedders/create-embedder.ts");
      const e = await createEmbedder(embedderConfig(ctx.config));
      const n = await reindexVectors(s.repos.chunkIndex, e, { onProgress: (d, t) => ctx.progress(`reindex: ${d}/${t}`) });
      await e?.close?.();
      ctx.print({ chunks: n, embedder: e ? `${e.id}@${e.dimension}` : "none" });
      return 0;
    },
  },
];

import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { appError } from "../../errors/index.ts";
import { type ExportFormat, parseExportRange } from "../../owner/chat-export.service.ts";
import { optionalString } from "../args.ts";
import { type Command, defineCommand } from "../command.ts";

/** Writes chunk by chunk, waiting for the sink to drain, so memory stays flat however large the export. */
async function pipeTo(chunks: AsyncGenerator<string>, sink: Writable): Promise<number> {
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += Buffer.byteLength(chunk);
    if (!sink.write(chunk)) await new Promise((resolve) => sink.once("drain", resolve));
  }
  return bytes;
}

export const chatLogsCommands: Command[] = [
  defineCommand({
    usage: "chat-logs export ID [--from DATE] [--to DATE] [--format jsonl|csv] [--out FILE]",
    summary: "A deployment's chat logs for a date range as JSON lines or CSV (formula-safe), streamed to FILE or stdout.",
    options: {
      from: { type: "string", doc: "first day (YYYY-MM-DD, UTC) or ISO time; default: the first log" },
      to: { type: "string", doc: "last day, inclusive (YYYY-MM-DD, UTC) or ISO time; default: now" },
      format: { type: "string", doc: "jsonl (default) or csv" },
      out: { type: "string", doc: "write to this file instead of stdout (required with --json)" },
    },
    async run(ctx) {
      const id = ctx.positionals[0];
      if (!id) throw appError("bad_request", { message: "The deployment ID is required.", param: "id" });
      const format = (ctx.values.format ?? "jsonl") as ExportFormat;
      if (format !== "jsonl" && format !== "csv")
        throw appError("bad_request", { message: "--format must be jsonl or csv.", param: "format" });
      const out = optionalString(ctx.values.out) ?? null;
      if (ctx.json && !out)
        throw appError("bad_request", { message: "With --json, write the export to a file with --out FILE.", param: "out" });
      const range = parseExportRange(ctx.values.from as string | undefined, ctx.values.to as string | undefined);
      const s = await ctx.services();
      const deployment = await s.deployments.getOrThrow(id);
      const chunks = s.chatExport.chunks(deployment.id, range, format);
      if (!out) {
        await pipeTo(chunks, process.stdout);
        return 0;
      }
      // "wx": an existing file is never overwritten
      const file = createWriteStream(out, { flags: "wx" });
      const failed = new Promise<never>((_, reject) =>
        file.once("error", (e) => reject(appError("bad_request", { param: "out", message: `Cannot write ${out}: ${e.message}` }))),
      );
      const bytes = await Promise.race([pipeTo(chunks, file), failed]);
      await Promise.race([new Promise((resolve) => file.end(resolve)), failed]);
      ctx.print({
        deployment_id: deployment.id,
        format,
        file: out,
        bytes,
        from: new Date(range.from).toISOString(),
        to: new Date(range.to).toISOString(),
      });
      return 0;
    },
  }),
];

import { definition } from "../../config/index.ts";
import { appError } from "../../errors/index.ts";
import { reanalyze } from "../../rag/terms.ts";
import { CopyRefused, type CopyReport, copySqliteToPg } from "../../store/copy/db-copy.ts";
import { scrubPassword } from "../../store/postgres/diagnostics.pg.ts";
import type { Command } from "../command.ts";

function table(report: CopyReport): string {
  const rows = report.tables.map((t) => [
    t.table,
    String(t.source_rows),
    String(t.target_rows),
    t.target_checksum,
    t.equal ? "ok" : "DIFFERS",
  ]);
  const head = ["table", "sqlite rows", "postgres rows", "checksum (md5)", ""];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 1 || i === 2 ? c.padStart(width[i] as number) : c.padEnd(width[i] as number)))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

export const dbCommands: Command[] = [
  {
    path: ["db", "copy"],
    usage: "db copy --from-data DIR --to postgres://…",
    summary: "Copy an SQLite data dir into an empty PostgreSQL database and verify every table (safe to re-run).",
    options: {
      "from-data": { type: "string", doc: "the data dir to copy (stop its server first)" },
      to: {
        type: "string",
        doc: "the PostgreSQL database to copy into: postgres://user:password@host:5432/db (empty, or an earlier copy of the same data dir); default DOCCHAT_DATABASE_URL",
      },
    },
    async run(ctx) {
      const from = ctx.values["from-data"];
      if (typeof from !== "string" || from.trim() === "")
        throw appError("bad_request", { message: "--from-data DIR is required.", param: "from-data" });
      const raw = typeof ctx.values.to === "string" ? ctx.values.to : ctx.config.databaseUrl;
      if (!raw) throw appError("bad_request", { message: "--to postgres://… is required (or set DOCCHAT_DATABASE_URL).", param: "to" });
      let url: string;
      try {
        url = definition.databaseUrl.parse(raw);
      } catch (e) {
        throw appError("bad_request", { message: `--to ${(e as Error).message}.`, param: "to" });
      }
      let report: CopyReport;
      try {
        report = await copySqliteToPg(from, url, { progress: ctx.progress, analyze: reanalyze });
      } catch (e) {
        // whatever the driver says, the URL's password never reaches the terminal
        const text = scrubPassword(e instanceof Error ? e.message : String(e), url);
        throw new Error(e instanceof CopyRefused ? `refused: ${text}` : text);
      }
      if (ctx.json) ctx.print({ ...report });
      else {
        const what =
          report.action === "copied"
            ? `copied ${report.from} into ${report.to}`
            : `${report.to} already holds a copy of ${report.from}: nothing changed`;
        ctx.stdout(
          `${what} (${report.ms} ms)\n${table(report)}\nkeyword index: ${report.keyword_indexed_chunks} of ${report.keyword_expected_chunks} chunks; vectors: ${report.vector_dimension === null ? "none" : `dimension ${report.vector_dimension}`}\n${report.ok ? "Every table matches." : "MISMATCH: the copy differs from the data dir (see above)."}\n`,
        );
      }
      return report.ok ? 0 : 1;
    },
  },
];

import { readFileSync } from "node:fs";
import { appError } from "../../errors/index.ts";
import { reportTable } from "../../eval/eval-report.ts";
import type { Command } from "../command.ts";

/** Reads the cases file: a JSON array of cases (or `{cases: [...]}`), as in docs/eval.md. */
function readCases(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw appError("bad_request", { message: `Cannot read the cases file ${path}.`, param: "cases" });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw appError("bad_request", { message: `${path} is not valid JSON.`, param: "cases" });
  }
}

export const evalCommand: Command = {
  path: ["eval"],
  usage: "eval ID CASES.json [--show all|failed]",
  summary:
    "Ask a deployment every question of a cases file through the answering pipeline (nothing logged or charged) and report, overall and per style and kind: correct, wrong, weak (hedged), refused, context recall, source precision, answer length and latency.",
  options: {
    show: {
      type: "string",
      doc: "also list the cases: `failed` (default: wrong, weak, refused or answered when it should refuse) or `all`",
    },
  },
  async run(ctx) {
    const id = ctx.positionals[0];
    const file = ctx.positionals[1];
    if (!id) throw appError("bad_request", { message: "The deployment ID is required.", param: "id" });
    if (!file) throw appError("bad_request", { message: "The cases file is required.", param: "cases" });
    const show = ctx.values.show ?? "failed";
    if (show !== "failed" && show !== "all") throw appError("bad_request", { message: "--show is `failed` or `all`.", param: "show" });
    const raw = readCases(file);
    const s = await ctx.services();
    const report = await s.eval.run(id, raw, { onCase: (done, total) => ctx.status(`eval ${done}/${total}`) });
    ctx.status("");
    if (ctx.json) {
      ctx.print({ deployment_id: id, ...report });
      return 0;
    }
    const listed = report.cases.filter((c) => show === "all" || (c.verdict !== "correct" && c.verdict !== "refused_right"));
    const lines = listed.map((c) => {
      const answer = c.answer.replace(/\s+/g, " ").slice(0, 160);
      return `- [${c.verdict}] ${c.id}: ${c.question}${c.search_query !== c.question ? `\n    searched: ${c.search_query}` : ""}\n    ${
        c.error ? `error: ${c.error}` : `answer: ${answer}${c.sources.length ? ` (sources: ${c.sources.join(", ")})` : ""}`
      }`;
    });
    ctx.stdout(`${reportTable(report)}\n${lines.length ? `\n${lines.join("\n")}\n` : ""}`);
    return 0;
  },
};

import { appError } from "../../errors/index.ts";
import { correctionItemView, correctionView, leadView } from "../../visitor/views.ts";
import { requiredOption } from "../args.ts";
import { type Command, defineCommand, resultCommand } from "../command.ts";

function positional(ctx: { positionals: string[] }, param: string, what: string): string {
  const v = ctx.positionals[0];
  if (!v) throw appError("bad_request", { message: `The ${what} is required.`, param });
  return v;
}

function chatLogIdArg(ctx: { positionals: string[] }): number {
  const raw = positional(ctx, "chat_log_id", "chat log ID");
  if (!/^[1-9][0-9]{0,14}$/.test(raw))
    throw appError("bad_request", { message: "CHAT_LOG_ID must be a positive whole number.", param: "chat_log_id" });
  return Number(raw);
}

export const visitorCommands: Command[] = [
  resultCommand({
    usage: "corrections list ID",
    summary: "Answers rated 0 (not helpful) for a deployment, with the correction that applies to each.",
    options: {},
    async result(ctx, s) {
      const id = (await s.deployments.getOrThrow(positional(ctx, "id", "deployment ID"))).id;
      return { deployment_id: id, items: (await s.corrections.list(id)).map(correctionItemView) };
    },
  }),
  defineCommand({
    usage: "corrections set CHAT_LOG_ID --answer TEXT",
    summary: "Write (or replace) the answer served from now on for that chat log's question.",
    options: { answer: { type: "string", doc: "the replacement answer" } },
    async run(ctx) {
      const chatLogId = chatLogIdArg(ctx);
      const answer = requiredOption(ctx, "answer");
      const s = await ctx.services();
      ctx.print({ correction: correctionView(await s.corrections.set(chatLogId, answer)) });
      return 0;
    },
  }),
  defineCommand({
    usage: "corrections delete CHAT_LOG_ID",
    summary: "Take that chat log's correction out of service (the rating stays).",
    options: {},
    async run(ctx) {
      const chatLogId = chatLogIdArg(ctx);
      const s = await ctx.services();
      ctx.print({ chat_log_id: chatLogId, deactivated: await s.corrections.remove(chatLogId) });
      return 0;
    },
  }),
  defineCommand({
    usage: "leads list ID [--csv]",
    summary: "Handoff leads of a deployment with their mail status; --csv prints a spreadsheet-safe CSV.",
    options: { csv: { type: "boolean", doc: "print CSV (with --json: a `csv` field)" } },
    async run(ctx) {
      const s = await ctx.services();
      const id = (await s.deployments.getOrThrow(positional(ctx, "id", "deployment ID"))).id;
      if (ctx.values.csv === true) {
        const csv = await s.leads.csv(id);
        if (ctx.json) ctx.print({ deployment_id: id, csv });
        else ctx.stdout(csv);
        return 0;
      }
      ctx.print({ deployment_id: id, mail_enabled: s.mail.enabled, leads: (await s.leads.list(id)).map(leadView) });
      return 0;
    },
  }),
  resultCommand({
    usage: "mail retry-dead",
    summary: "Queue dead-lettered owner mail again with a fresh attempt budget (e.g. after fixing DOCCHAT_SMTP_URL).",
    options: {},
    result: async (_ctx, s) => ({ requeued: await s.repos.outbox.retryDead() }),
  }),
];

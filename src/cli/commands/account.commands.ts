import { appError } from "../../errors/index.ts";
import { optionalString, requiredOption } from "../args.ts";
import { type Command, defineCommand } from "../command.ts";

const intArg = (raw: string | undefined, param: string): number => {
  if (raw === undefined || !/^\d+$/.test(raw)) throw appError("bad_request", { message: `${param} must be a whole number ≥ 0.`, param });
  return Number(raw);
};

export const accountCommands: Command[] = [
  defineCommand({
    usage: "account unlock --email E [--ip ADDRESS]",
    summary: "Clear the console sign-in limit for an owner (from every address, or from one).",
    options: {
      email: { type: "string", doc: "owner email" },
      ip: { type: "string", doc: "only the attempts from this client address" },
    },
    async run(ctx) {
      const given = requiredOption(ctx, "email");
      const s = await ctx.services();
      const email = (await s.accounts.getByEmailOrThrow(given)).email.toLowerCase();
      const ip = optionalString(ctx.values.ip);
      ctx.print({ email, ip: ip ?? null, cleared_attempts: await s.repos.loginAttempts.clear({ email, ip }) });
      return 0;
    },
  }),
  defineCommand({
    usage: "account create --email E [--password P] [--tokens N]",
    summary: "Create an owner account (password for the web console; tokens = starting balance).",
    options: {
      email: { type: "string", doc: "owner email (sign-in name, receives handoff mail)" },
      password: { type: "string", doc: "console password, at least 8 characters (or env DOCCHAT_PASSWORD)" },
      tokens: { type: "string", doc: "starting token balance (default 0)" },
    },
    async run(ctx) {
      const email = requiredOption(ctx, "email");
      const password = (ctx.values.password as string | undefined) ?? ctx.env.DOCCHAT_PASSWORD;
      const tokens = ctx.values.tokens === undefined ? 0 : intArg(ctx.values.tokens as string, "tokens");
      const s = await ctx.services();
      const a = await s.accounts.create({ email, password, tokens });
      ctx.print({ id: a.id, email: a.email, tokens: a.tokens });
      return 0;
    },
  }),
  defineCommand({
    usage: "tokens set --account E N",
    summary: "Set an account's token balance.",
    options: { account: { type: "string", doc: "owner email" } },
    async run(ctx) {
      const email = requiredOption(ctx, "account");
      const tokens = intArg(ctx.positionals[0], "tokens");
      const s = await ctx.services();
      const a = await s.accounts.setTokens(email, tokens);
      ctx.print({ email: a.email, tokens: a.tokens });
      return 0;
    },
  }),
];

import { appError } from "../errors/index.ts";
import type { CommandContext } from "./command.ts";

/** The value of `--name`, which the command cannot do without: a usage error when it is missing. */
export function requiredOption(ctx: Pick<CommandContext, "values">, name: string): string {
  const v = ctx.values[name];
  if (typeof v !== "string") throw appError("bad_request", { message: `--${name} is required.`, param: name });
  return v;
}

/** The value of `--name` when it was given. */
export const optionalString = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

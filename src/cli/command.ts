import type { Services } from "../app.ts";
import type { Config } from "../config/index.ts";

export type OptionSpec = { type: "string" | "boolean"; multiple?: boolean; short?: string; doc: string };

export interface CommandContext {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  json: boolean;
  config: Config;
  /** The environment main.ts was given: commands read it here, not from the process. */
  env: Record<string, string | undefined>;
  /** Opens the data dir (migrating it) once; closed by the runner afterwards. */
  services(): Promise<Services>;
  /** Prints the command's result: one JSON object with --json, readable lines otherwise. */
  print(result: Record<string, unknown>): void;
  /** Progress for humans on a terminal; silent with --json. */
  progress(line: string): void;
  /** One status line on a terminal, redrawn in place (a progress bar); "" clears it. Silent with --json. */
  status(line: string): void;
  stdout(text: string): void;
}

export interface Command {
  /** words, e.g. ["deployment", "create"] */
  path: string[];
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** hidden commands (internal workers) are left out of --help */
  hidden?: boolean;
  /** long-running commands (serve) manage their own services */
  run(ctx: CommandContext): Promise<number | undefined>;
}

/** A command's words are the start of its usage line ("deployment show ID" → deployment, show). */
export function commandPath(usage: string): string[] {
  const words = usage.split(" ");
  const args = words.findIndex((w) => !/^[a-z_][a-z0-9_-]*$/.test(w));
  return args < 0 ? words : words.slice(0, args);
}

/** A command, its words said once: in its usage line. */
export function defineCommand(spec: Omit<Command, "path">): Command {
  return { path: commandPath(spec.usage), ...spec };
}

/**
 * A command that opens the services first and prints the one result it comes to (exit code 0). Commands that
 * check their arguments before opening the data dir use defineCommand.
 */
export function resultCommand(
  spec: Omit<Command, "path" | "run"> & { result(ctx: CommandContext, s: Services): Promise<Record<string, unknown>> },
): Command {
  const { result, ...rest } = spec;
  return defineCommand({
    ...rest,
    async run(ctx) {
      ctx.print(await result(ctx, await ctx.services()));
      return 0;
    },
  });
}

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

import { parseArgs } from "node:util";
import type { Services } from "../app.ts";
import { ConfigError, definition, loadConfig } from "../config/index.ts";
import { isAppError } from "../errors/index.ts";
import { COMMIT, VERSION } from "../version.ts";
import type { Command, OptionSpec } from "./command.ts";
import { commands } from "./command-table.ts";
import { formatHuman } from "./format.ts";

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTty: boolean;
}

/** Flags every command accepts: the config settings that have a flag, plus --json and --help. */
const common: Record<string, OptionSpec> = {
  json: { type: "boolean", doc: "print exactly one JSON object on stdout" },
  help: { type: "boolean", short: "h", doc: "show help for this command" },
  ...Object.fromEntries(
    Object.values(definition)
      .filter((s) => s.flag)
      .map((s) => [(s.flag as string).slice(2), { type: "string" as const, doc: s.doc }]),
  ),
};

function findCommand(argv: string[]): { cmd: Command; rest: string[] } | null {
  let best: { cmd: Command; rest: string[] } | null = null;
  for (const cmd of commands) {
    if (cmd.path.every((w, i) => argv[i] === w) && (!best || cmd.path.length > best.cmd.path.length)) {
      best = { cmd, rest: argv.slice(cmd.path.length) };
    }
  }
  return best;
}

/** What every command's help lists besides its own options; `serve --help` lists every setting's flag. */
const EVERYDAY = ["data", "database", "json", "help"];

function helpFor(cmd: Command): string {
  const shown = cmd.path[0] === "serve" ? common : Object.fromEntries(EVERYDAY.map((k) => [k, common[k] as OptionSpec]));
  const opts = { ...cmd.options, ...shown };
  const lines = Object.entries(opts).map(
    ([k, o]) => `  --${k}${o.type === "string" ? " VALUE" : ""}${o.multiple ? " (repeatable)" : ""}\n      ${o.doc}`,
  );
  const more =
    cmd.path[0] === "serve"
      ? ""
      : "\nEvery setting can also come from its DOCCHAT_* variable (docs/configuration.md); `docchat serve --help` lists the server's.\n";
  return `Usage: docchat ${cmd.usage}\n\n${cmd.summary}\n\nOptions:\n${lines.join("\n")}\n${more}`;
}

export function generalHelp(): string {
  const rows = commands.filter((c) => !c.hidden).map((c) => `  ${c.usage.padEnd(58)} ${c.summary}`);
  return `docchat ${VERSION} — answers questions from your documents, offline.\n\nUsage: docchat <command> [options]\n\nCommands:\n${rows.join("\n")}\n\nEvery command takes --data DIR (default ./data, env DOCCHAT_DATA), --json and --help.\n`;
}

/** Runs one CLI invocation and returns the exit code: 0 ok, 1 failure, 2 usage error. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version") {
    io.stdout(`docchat ${VERSION} (${COMMIT})\n`);
    return 0;
  }
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    io.stdout(generalHelp());
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr(`docchat: unknown command "${argv.slice(0, 2).join(" ")}". Run "docchat --help".\n`);
    return 2;
  }
  const { cmd, rest } = found;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: { ...cmd.options, ...common }, allowPositionals: true, strict: true });
  } catch (e) {
    io.stderr(`docchat ${cmd.path.join(" ")}: ${(e as Error).message}\n${helpFor(cmd)}`);
    return 2;
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (values.help) {
    io.stdout(helpFor(cmd));
    return 0;
  }
  const flags: Record<string, string> = {};
  for (const s of Object.values(definition)) {
    const v = s.flag ? values[s.flag.slice(2)] : undefined;
    if (typeof v === "string" && s.flag) flags[s.flag] = v;
  }
  let services: Services | null = null;
  try {
    const config = loadConfig({
      env: { ...io.env, DOCCHAT_LOG_LEVEL: io.env.DOCCHAT_LOG_LEVEL ?? (cmd.path[0] === "serve" ? "info" : "warn") },
      flags,
    });
    const json = values.json === true;
    const code = await cmd.run({
      values,
      positionals: parsed.positionals,
      json,
      config,
      env: io.env,
      services: async () => {
        // the services (stores, models, parsers) load with the first command that needs them, not for --help
        const { createServices } = await import("../app.ts");
        services ??= await createServices(config);
        return services;
      },
      print: (result) => io.stdout(json ? `${JSON.stringify(result)}\n` : `${formatHuman(result)}\n`),
      progress: (line) => {
        if (!json && io.isTty) io.stderr(`\r\x1b[2K${line}\n`);
      },
      status: (line) => {
        if (!json && io.isTty) io.stderr(`\r\x1b[2K${line}`);
      },
      stdout: io.stdout,
    });
    return code ?? 0;
  } catch (e) {
    if (e instanceof ConfigError) io.stderr(`docchat: ${e.message}\n`);
    else if (isAppError(e)) io.stderr(`docchat ${cmd.path.join(" ")}: ${e.message}${e.param ? ` (${e.param})` : ""} [${e.code}]\n`);
    else io.stderr(`docchat ${cmd.path.join(" ")}: ${(e as Error).message ?? e}\n`);
    return e instanceof ConfigError || (isAppError(e) && e.status === 400) ? 2 : 1;
  } finally {
    if (services) await (services as Services).close();
  }
}

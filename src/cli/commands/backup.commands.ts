import { resolve } from "node:path";
import { serverHoldingDataDir } from "../../store/data-dir-lock.ts";
import { pgDumpAdvice } from "../../store/postgres/pg-url.ts";
import { backupDatabase, restoreDatabase } from "../../store/sqlite/backup.ts";
import { type Command, type CommandContext, defineCommand } from "../command.ts";

/**
 * The one PATH the command takes, on SQLite only: with PostgreSQL nothing in the data dir would be the state, so
 * it says how PostgreSQL is backed up instead of pretending.
 */
function sqlitePath(ctx: CommandContext, expected: string): string {
  const path = ctx.positionals[0];
  if (!path || ctx.positionals.length > 1) throw new Error(`expected exactly one PATH (${expected})`);
  if (ctx.config.databaseUrl) throw new Error(`not done.\n${pgDumpAdvice(ctx.config.databaseUrl, path)}`);
  return path;
}

export const backupCommands: Command[] = [
  defineCommand({
    usage: "backup PATH [--data DIR]",
    summary: "Write a consistent snapshot of the SQLite database to PATH (safe while serve runs; PostgreSQL: pg_dump).",
    options: {},
    async run(ctx) {
      const target = sqlitePath(ctx, "a new file, or an existing directory");
      ctx.progress(`backing up ${resolve(ctx.config.dataDir)} …`);
      ctx.print({ ...(await backupDatabase(ctx.config.dataDir, target)) });
      return 0;
    },
  }),
  defineCommand({
    usage: "restore PATH [--data DIR]",
    summary: "Replace the database with a backup (stop serve first; the old database is kept aside).",
    options: {},
    async run(ctx) {
      const source = sqlitePath(ctx, "a file written by docchat backup");
      const holder = serverHoldingDataDir(ctx.config.dataDir);
      if (holder !== null)
        throw new Error(`a docchat server (pid ${holder}) is using ${resolve(ctx.config.dataDir)}; stop it, then restore`);
      ctx.progress(`verifying ${resolve(source)} …`);
      ctx.print({ ...(await restoreDatabase(ctx.config.dataDir, source)) });
      return 0;
    },
  }),
];

#!/usr/bin/env bun
import { runCli } from "./cli/run-cli.ts";

// Output is written in order and awaited before exiting: process.stdout.write to a pipe returns before the
// bytes are out, and exiting then cut a large --json result at 128 KiB (or 64 KiB).
let pending: Promise<unknown> = Promise.resolve();
const write = (target: typeof Bun.stdout, s: string) => {
  pending = pending.then(() => Bun.write(target, s)).catch(() => {});
};

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (s) => write(Bun.stdout, s),
  stderr: (s) => write(Bun.stderr, s),
  isTty: process.stderr.isTTY === true,
});
await pending;
process.exit(code);

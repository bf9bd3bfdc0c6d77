#!/usr/bin/env bun
import { runCli } from "./cli/run-cli.ts";

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  isTty: process.stderr.isTTY === true,
});
process.exit(code);

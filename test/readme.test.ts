import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { type ServeProcess, startServeProcess } from "./helpers/serve-process.ts";
import { tempDir } from "./helpers/server.ts";

/**
 * The README as a first-time operator reads it: its First steps block is run by bash, as written, against a
 * real `docchat serve` (only the address is swapped for the test server's), in a folder laid out as the checkout
 * (src/, package.json and the sample handbook in examples/, which the steps upload).
 */
const ROOT = join(import.meta.dir, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const DOCUMENTED_URL = "http://127.0.0.1:8080";

function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start).toBeGreaterThan(0);
  const end = README.indexOf("\n## ", start + 4);
  return README.slice(start, end < 0 ? undefined : end);
}

const firstBlock = (text: string, lang: string) => [...text.matchAll(/```(\w+)\n([\s\S]*?)```/g)].find((m) => m[1] === lang)?.[2];

let cwd: string;
let dataDir: string;
let serve: ServeProcess;

beforeAll(async () => {
  cwd = tempDir("docchat-readme-");
  dataDir = join(cwd, "data");
  // `bun src/main.ts` is run from the checkout; the operator's folder here links to it.
  symlinkSync(join(ROOT, "src"), join(cwd, "src"));
  symlinkSync(join(ROOT, "package.json"), join(cwd, "package.json"));
  symlinkSync(join(ROOT, "examples"), join(cwd, "examples"));
  serve = await startServeProcess({ command: [process.execPath, join(ROOT, "src/main.ts")], dataDir });
});

afterAll(async () => {
  await serve?.stop();
  rmSync(cwd, { recursive: true, force: true });
});

describe("README", () => {
  test("starts with the two commands: one serves, one runs every test", () => {
    const first = firstBlock(README, "sh");
    expect(first).toBe(
      "npm install -g bun@1.4.5 && bun install --frozen-lockfile && bun run serve\nnpm install -g bun@1.4.5 && bun install --frozen-lockfile && bun run test\n",
    );
    expect(README.indexOf("```sh")).toBeLessThan(README.indexOf("\n## "));
  });

  test("First steps, run as written, go from an account to a grounded first answer", async () => {
    const script = firstBlock(section("First steps"), "sh");
    expect(script).toBeDefined();
    expect(script).toContain(DOCUMENTED_URL);
    const proc = Bun.spawn(["bash", "-euo", "pipefail", "-c", script!.replaceAll(DOCUMENTED_URL, serve.url)], {
      cwd,
      env: { ...process.env, DOCCHAT_DATA: dataDir, DOCCHAT_LOG_LEVEL: "silent" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toMatch(/^dck_[0-9A-Za-z]{32}$/m);
    const lines = out.trim().split("\n");
    const upload = JSON.parse(lines.at(-2)!) as { status: string; name: string };
    expect(upload).toMatchObject({ status: "completed", name: "acme-handbook.txt" });
    const answer = JSON.parse(lines.at(-1)!) as { choices: { message: { content: string } }[]; sources: string[]; refused: boolean };
    expect(answer.refused).toBe(false);
    expect(answer.sources).toEqual(["acme-handbook"]);
    expect(answer.choices[0]?.message.content).toContain("30 days");
  }, 60_000);

  test("the console URL it gives is printed in the start-up log and serves the console", async () => {
    expect(section("First steps")).toContain(`${DOCUMENTED_URL}/console/`);
    const logged = /"msg":"owner console","url":"([^"]+)"/.exec(serve.log())?.[1];
    expect(logged).toBe(`${serve.url}/console/`);
    const page = await fetch(logged!);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
  });

  test("the widget snippet loads the widget script from the server", async () => {
    const html = firstBlock(section("First steps"), "html");
    const src = /<script src="([^"]+)" data-key="[^"]+" defer><\/script>/.exec(html ?? "")?.[1];
    expect(src).toBe(`${DOCUMENTED_URL}/widget.js`);
    const r = await fetch(src!.replace(DOCUMENTED_URL, serve.url));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("javascript");
  });

  test("names every install script bun blocks (bun pm untrusted) and why it is not needed", async () => {
    const proc = Bun.spawn([process.execPath, "pm", "untrusted"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    const blocked = [...out.matchAll(/^\.\/node_modules\/(\S+) @/gm)].map((m) => m[1]!);
    expect(blocked.length).toBeGreaterThan(0);
    expect(README).toContain(`Blocked ${blocked.length} postinstalls`);
    for (const name of blocked) expect(README).toContain(`\`${name}\``);
    expect(README).toContain('"trustedDependencies": []');
  });
});

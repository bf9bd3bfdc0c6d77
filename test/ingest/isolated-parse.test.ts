import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isAppError } from "../../src/errors/index.ts";
import { defaultWorkerCommand, isolatedParse } from "../../src/ingest/isolated-parse.ts";
import { parseDocument } from "../../src/ingest/parse.ts";
import { PARSE_WORKER_COMMAND } from "../../src/ingest/parse-worker.ts";
import { expectAppError, fixtureDoc, sharedDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";
import { buildDocx } from "./helpers/docx-builder.ts";

const bun = process.execPath;

async function failure(run: Promise<unknown>): Promise<{ code?: string; cause?: string }> {
  try {
    await run;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, cause: String((error.cause as Error | undefined)?.message ?? "") };
    throw error;
  }
  throw new Error("expected the parse to fail");
}

describe("isolatedParse", () => {
  for (const name of ["three-pages.pdf", "structured.docx", "pipe-delimited.csv", "notes-utf16le.txt"]) {
    test(`returns the same document for ${name} as parsing in-process`, async () => {
      const bytes = await fixtureDoc(name);
      const opts = { ...TEST_PARSE_OPTIONS, filename: name };
      expect(await isolatedParse(bytes, opts)).toEqual(await parseDocument(bytes, opts));
    });
  }

  test("passes the parser's own error code back from the worker", async () => {
    await expectAppError(
      isolatedParse(await sharedDoc("pdf/encrypted/pypdf-r3-user-password.pdf"), TEST_PARSE_OPTIONS),
      "document_encrypted",
    );
    await expectAppError(isolatedParse(await fixtureDoc("tiny.png"), TEST_PARSE_OPTIONS), "unsupported_document");
  });

  test("hands the size limits to the worker", async () => {
    const bomb = buildDocx([{ paragraph: "hi" }], [{ name: "word/media/fill.bin", data: new Uint8Array(8 * 1024 * 1024) }]);
    await expectAppError(isolatedParse(bomb, { ...TEST_PARSE_OPTIONS, maxInflatedBytes: 1024 * 1024 }), "payload_too_large");
    await expectAppError(isolatedParse(await fixtureDoc("three-pages.pdf"), { ...TEST_PARSE_OPTIONS, maxPages: 1 }), "payload_too_large");
  });

  test("kills a worker that hangs once the timeout passes, without blocking the event loop", async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = performance.now();
    const result = await failure(
      isolatedParse(new Uint8Array([1]), TEST_PARSE_OPTIONS, { command: [bun, "-e", "setInterval(() => {}, 1000)"], timeoutMs: 600 }),
    );
    clearInterval(ticker);
    const elapsed = performance.now() - started;
    expect(result).toEqual({ code: "document_unreadable", cause: "parse timed out after 600 ms" });
    expect(elapsed).toBeGreaterThanOrEqual(550);
    expect(elapsed).toBeLessThan(5000);
    expect(ticks).toBeGreaterThan(20);
  });

  test("kills a worker whose memory grows past the limit", async () => {
    const hog = "const a = []; setInterval(() => a.push(new Uint8Array(32 * 1024 * 1024).fill(1)), 10);";
    const started = performance.now();
    const result = await failure(
      isolatedParse(new Uint8Array([1]), TEST_PARSE_OPTIONS, { command: [bun, "-e", hog], memoryLimitMb: 256, timeoutMs: 20_000 }),
    );
    expect(result).toEqual({ code: "document_unreadable", cause: "parse worker exceeded 256 MB resident memory" });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test("reports a worker that dies without replying as unreadable", async () => {
    const result = await failure(isolatedParse(new Uint8Array([1]), TEST_PARSE_OPTIONS, { command: [bun, "-e", "process.exit(3)"] }));
    expect(result.code).toBe("document_unreadable");
    expect(result.cause).toStartWith("parse worker exited with 3");
  });

  test("works through a CLI-style entry that runs the worker for a hidden command, despite stray stdout", async () => {
    const command = [bun, join(import.meta.dir, "helpers/cli-like-entry.ts"), PARSE_WORKER_COMMAND];
    const bytes = await fixtureDoc("structured.docx");
    expect(await isolatedParse(bytes, TEST_PARSE_OPTIONS, { command })).toEqual(await parseDocument(bytes, TEST_PARSE_OPTIONS));
  });

  test("defaults, when run from source, to this Bun running parse-worker.ts", () => {
    const [exe, script, ...rest] = defaultWorkerCommand();
    expect(exe).toBe(process.execPath);
    expect(script).toEndWith("src/ingest/parse-worker.ts");
    expect(existsSync(script ?? "")).toBe(true);
    expect(rest).toEqual([]);
  });
});

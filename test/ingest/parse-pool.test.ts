import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAppError } from "../../src/errors/index.ts";
import { DEFAULT_CHUNK_OPTIONS } from "../../src/ingest/chunk.ts";
import {
  createParsePool,
  defaultWorkerCommand,
  discardPrepared,
  type ParsePoolOptions,
  type PreparedDocument,
  preparedParts,
} from "../../src/ingest/parse-pool.ts";
import { PARSE_WORKER_COMMAND } from "../../src/ingest/parse-worker.ts";
import { prepareDocument, readPreparedLines } from "../../src/ingest/prepare.ts";
import { FIXTURE_DOCS, SHARED_DOCS, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";
import { buildDocx } from "./helpers/docx-builder.ts";

const bun = process.execPath;
const spool = mkdtempSync(join(tmpdir(), "docchat-pool-"));
afterAll(() => rmSync(spool, { recursive: true, force: true }));
const OCR_OFF = { enabled: false, maxPages: 0, timeoutMs: 1000 };

function pool(over: Partial<ParsePoolOptions> = {}) {
  return createParsePool({ spoolDir: spool, size: 1, ...TEST_PARSE_OPTIONS, chunking: DEFAULT_CHUNK_OPTIONS, ocr: OCR_OFF, ...over });
}

/** Runs `body` with a pool (options as for pool()), and closes the pool afterwards, whatever happened. */
async function withPool(over: Partial<ParsePoolOptions>, body: (p: ReturnType<typeof pool>) => Promise<void>): Promise<void> {
  const p = pool(over);
  try {
    await body(p);
  } finally {
    await p.close();
  }
}

async function linesOf(prepared: PreparedDocument): Promise<string> {
  const parts: string[] = [];
  for await (const part of preparedParts(prepared)) parts.push(part);
  await discardPrepared(prepared);
  return parts.join("\n");
}

let n = 0;
function fileOf(bytes: Uint8Array): string {
  const path = join(spool, `in-${++n}`);
  writeFileSync(path, bytes);
  return path;
}

async function failure(run: Promise<unknown>): Promise<{ code?: string; cause?: string }> {
  try {
    await run;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, cause: String((error.cause as Error | undefined)?.message ?? "") };
    throw error;
  }
  throw new Error("expected the parse to fail");
}

describe("the parse pool", () => {
  test("prepares the same chunks as preparing in-process, for every format, in one reused worker", async () => {
    await withPool({}, async (p) => {
      for (const name of ["three-pages.pdf", "structured.docx", "pipe-delimited.csv", "notes-utf16le.txt"]) {
        const path = join(FIXTURE_DOCS, name);
        const bytes = new Uint8Array(await Bun.file(path).arrayBuffer());
        const here = await prepareDocument(bytes, { ...TEST_PARSE_OPTIONS, filename: name, chunking: DEFAULT_CHUNK_OPTIONS, ocr: OCR_OFF });
        const there = await p.prepare({ path, filename: name });
        expect(there.meta).toEqual(here.meta);
        const lines = await linesOf(there);
        expect(lines).toBe(here.lines);
        expect(readPreparedLines(lines).length).toBe(there.meta.chunks);
      }
      expect(p.started()).toBe(1);
    });
  });

  test("hands a reply too large for an IPC message back through a spool file in parts of whole lines, then removes it", async () => {
    await withPool({}, async (p) => {
      const text = Array.from({ length: 10_000 }, (_, i) => `Paragraph ${i} says something about topic ${i}.`).join("\n\n");
      const r = await p.prepare({ path: fileOf(new TextEncoder().encode(text)), filename: "big.txt" });
      expect(r.inline).toBeUndefined();
      expect(r.file?.offsets.length).toBeGreaterThan(3);
      const parts: string[] = [];
      for await (const part of preparedParts(r)) parts.push(part);
      expect(parts.map((part) => readPreparedLines(part).length).reduce((a, b) => a + b)).toBe(r.meta.chunks);
      await discardPrepared(r);
      const texts = readPreparedLines(parts.join("\n")).map((c) => c.text);
      expect(texts.join(" ")).toContain("Paragraph 9999 says");
      expect([...new Bun.Glob("reply-*").scanSync(spool)]).toEqual([]);
    });
  });

  test("reads only the byte range it is given, as in an upload's spool file", async () => {
    await withPool({}, async (p) => {
      const body = new TextEncoder().encode("--envelope--\r\nOnly this sentence is the document.\r\n--envelope--");
      const r = await p.prepare({ path: fileOf(body), start: 14, end: body.byteLength - 14, filename: "range.txt" });
      expect(readPreparedLines(await linesOf(r)).map((c) => c.text)).toEqual(["Only this sentence is the document."]);
    });
  });

  test("passes the parser's own error code back from the worker", async () => {
    await withPool({}, async (p) => {
      expect((await failure(p.prepare({ path: join(SHARED_DOCS, "pdf/encrypted/pypdf-r3-user-password.pdf") }))).code).toBe(
        "document_encrypted",
      );
      expect((await failure(p.prepare({ path: join(FIXTURE_DOCS, "tiny.png") }))).code).toBe("unsupported_document");
    });
  });

  test("hands the size limits to the worker", async () => {
    await withPool({ maxInflatedBytes: 1024 * 1024, maxPages: 1 }, async (p) => {
      const bomb = buildDocx([{ paragraph: "hi" }], [{ name: "word/media/fill.bin", data: new Uint8Array(8 * 1024 * 1024) }]);
      expect((await failure(p.prepare({ path: fileOf(bomb) }))).code).toBe("payload_too_large");
      expect((await failure(p.prepare({ path: join(FIXTURE_DOCS, "three-pages.pdf") }))).code).toBe("payload_too_large");
    });
  });

  test("kills a worker that burns the CPU past its limit: the document is too complex (4xx), the event loop never waits", async () => {
    const p = pool({
      command: [bun, "-e", "process.on('message', () => { for (;;) {} }); process.send({ type: 'ready' });"],
      timeoutMs: 600,
      // a niced worker on a busy machine may wait long for its 600 ms of CPU: the clock backstop must not come first
      clockFactor: 100,
    });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const result = await failure(p.prepare({ path: fileOf(new Uint8Array([1])) }));
    clearInterval(ticker);
    await p.close();
    expect(result).toEqual({ code: "document_too_complex", cause: "parse used more than 600 ms of CPU" });
    expect(ticks).toBeGreaterThan(20);
  });

  test("a worker stuck without using the CPU is stopped by the clock backstop, five times the CPU limit", async () => {
    const p = pool({ command: [bun, "-e", "setInterval(() => {}, 1000)"], timeoutMs: 600 });
    const started = performance.now();
    const result = await failure(p.prepare({ path: fileOf(new Uint8Array([1])) }));
    const elapsed = performance.now() - started;
    await p.close();
    expect(result).toEqual({ code: "document_too_complex", cause: "parse timed out after 3000 ms" });
    // a wait for the CPU is not charged: nothing stops it before the backstop
    expect(elapsed).toBeGreaterThanOrEqual(2900);
  });

  test("kills a worker whose memory grows past the limit: the document is too complex, not unreadable", async () => {
    const hog = "const a = []; setInterval(() => a.push(new Uint8Array(32 * 1024 * 1024).fill(1)), 10);";
    const p = pool({ command: [bun, "-e", hog], memoryLimitMb: 256, timeoutMs: 20_000 });
    const result = await failure(p.prepare({ path: fileOf(new Uint8Array([1])) }));
    await p.close();
    expect(result).toEqual({ code: "document_too_complex", cause: "parse worker exceeded 256 MB resident memory" });
  });

  test("a worker that dies without replying is a server fault (parse_failed, retryable), not the file's", async () => {
    const p = pool({ command: [bun, "-e", "process.exit(3)"] });
    const result = await failure(p.prepare({ path: fileOf(new Uint8Array([1])) }));
    await p.close();
    expect(result.code).toBe("parse_failed");
    expect(result.cause).toStartWith("parse worker exited with 3");
  });

  test("replaces a worker killed mid-document: only that document fails and the queue carries on", async () => {
    await withPool({}, async (p) => {
      const slow = Array.from({ length: 20_000 }, (_, i) => `Line ${i} of a long text with several words in it.`).join("\n\n");
      const first = failure(p.prepare({ path: fileOf(new TextEncoder().encode(slow)), filename: "slow.txt" }));
      const rest = ["structured.docx", "pipe-delimited.csv"].map((name) => p.prepare({ path: join(FIXTURE_DOCS, name), filename: name }));
      while (p.pids().length === 0) await Bun.sleep(5);
      process.kill(p.pids()[0] as number, "SIGKILL");
      expect((await first).code).toBe("parse_failed");
      const done = await Promise.all(rest);
      expect(done.map((d) => d.meta.kind)).toEqual(["docx", "csv"]);
      expect(p.started()).toBe(2);
    });
  });

  test("a worker busy with a batch is sent the next batch ahead; killed, that batch goes whole to its replacement", async () => {
    await withPool({}, async (p) => {
      const slow = Array.from({ length: 20_000 }, (_, i) => `Line ${i} of a long text with several words in it.`).join("\n\n");
      const first = failure(
        p.prepareBatch([
          { path: fileOf(new TextEncoder().encode(slow)), filename: "slow.txt" },
          { path: join(FIXTURE_DOCS, "pipe-delimited.csv"), filename: "a.csv" },
        ]),
      );
      const ahead = p.prepareBatch(["structured.docx", "pipe-delimited.csv"].map((name) => ({ path: join(FIXTURE_DOCS, name), filename: name })));
      while (p.pids().length === 0) await Bun.sleep(5);
      process.kill(p.pids()[0] as number, "SIGKILL");
      expect((await first).code).toBe("parse_failed");
      const done = await ahead;
      expect(done.map((d) => d.ok && d.prepared.meta.kind)).toEqual(["docx", "csv"]);
      expect(p.started()).toBe(2);
    });
  });

  test("a worker due for recycling finishes the batch sent ahead first", async () => {
    await withPool({ recycleAfter: 1 }, async (p) => {
      const batch = () => p.prepareBatch(["a.csv", "b.csv"].map((name) => ({ path: join(FIXTURE_DOCS, "pipe-delimited.csv"), filename: name })));
      const done = await Promise.all([batch(), batch(), batch()]);
      expect(done.flat().every((d) => d.ok)).toBe(true);
      // the first worker did its batch and the one sent ahead, then was replaced for the third
      expect(p.started()).toBe(2);
    });
  });

  test("recycles a worker after the configured number of documents", async () => {
    await withPool({ recycleAfter: 2 }, async (p) => {
      for (let i = 0; i < 5; i++) await p.prepare({ path: join(FIXTURE_DOCS, "pipe-delimited.csv"), filename: "x.csv" });
      expect(p.started()).toBe(3);
    });
  });

  test("runs several workers at once when sized for it", async () => {
    await withPool({ size: 2 }, async (p) => {
      const names = ["structured.docx", "three-pages.pdf", "pipe-delimited.csv", "notes-utf16le.txt"];
      const done = await Promise.all(names.map((name) => p.prepare({ path: join(FIXTURE_DOCS, name), filename: name })));
      expect(done.map((d) => d.meta.kind)).toEqual(["docx", "pdf", "csv", "txt"]);
      expect(p.started()).toBe(2);
    });
  });

  test("works through a CLI-style entry that runs the worker for a hidden command, despite stray stdout", async () => {
    await withPool({ command: [bun, join(import.meta.dir, "helpers/cli-like-entry.ts"), PARSE_WORKER_COMMAND] }, async (p) => {
      const r = await p.prepare({ path: join(FIXTURE_DOCS, "structured.docx"), filename: "structured.docx" });
      expect(r.meta.kind).toBe("docx");
    });
  });

  test.if(process.platform === "linux")("starts its workers without JavaScriptCore's FTL tier, in the server's environment otherwise", async () => {
    await withPool({}, async (p) => {
      await p.prepare({ path: join(FIXTURE_DOCS, "pipe-delimited.csv"), filename: "x.csv" });
      const [pid] = p.pids();
      const env = (await Bun.file(`/proc/${pid}/environ`).text()).split("\0");
      expect(env).toContain("BUN_JSC_useFTLJIT=0");
      expect(env).toContain(`PATH=${process.env.PATH}`);
    });
  });

  test("defaults, when run from source, to this Bun running parse-worker.ts", () => {
    const [exe, script, ...rest] = defaultWorkerCommand();
    expect(exe).toBe(process.execPath);
    expect(script).toEndWith("src/ingest/parse-worker.ts");
    expect(existsSync(script ?? "")).toBe(true);
    expect(rest).toEqual([]);
  });
});

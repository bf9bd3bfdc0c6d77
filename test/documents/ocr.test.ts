import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parseDocument } from "../../src/ingest/parse.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { writePdf } from "../ingest/helpers/pdf-writer.ts";
import { scanPdf } from "../ingest/helpers/scanned-pdf.ts";

const SCANNED = join(import.meta.dir, "../../../shared/data/docs/pdf/scanned");
let srv: TestServer;
beforeAll(async () => {
  // a parse limit shorter than the OCR of one page: OCR time is allowed on top once a worker starts reading images.
  // The push waits for training as long as it takes: parse workers are niced, and beside two CPU-bound processes a
  // page that takes 10 s alone takes two minutes
  srv = await startTestServer({ DOCCHAT_LLM: "extractive", DOCCHAT_TRAIN_WAIT_MS: "600000", DOCCHAT_PARSE_TIMEOUT_MS: "2000" });
});
afterAll(() => srv.stop());

async function upload(apiKey: string, file: string) {
  const form = new FormData();
  form.append("file", Bun.file(join(SCANNED, file)), file);
  const r = await fetch(`${srv.url}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

test("a scanned PDF with no text layer is read by offline OCR, marked as such, and answers a question only its image holds", async () => {
  const { apiKey } = await srv.seed();
  // a one-page scan of the LinnSequencer leaflet: pdftotext finds no text in it at all
  const r = await upload(apiKey, "ccitt.pdf");
  expect(r.status).toBe(200);
  expect(r.body.status).toBe("completed");
  expect(r.body.ocr).toBe(true);
  expect(r.body.ocr_pages).toBe(1);
  expect(r.body.ocr_confidence as number).toBeGreaterThan(60);
  expect(r.body.notes).toEqual([]);

  const answer = await fetch(`${srv.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "How many polyphonic tracks does each LinnSequencer sequence contain?" }],
    }),
  });
  const body = (await answer.json()) as { choices: { message: { content: string } }[]; sources?: string[] };
  expect(body.choices[0]?.message.content).toContain("32 simultaneous, polyphonic tracks");
}, 660_000);

test("with OCR turned off, a scanned PDF is refused as having no text, as before", async () => {
  const off = await startTestServer({ DOCCHAT_OCR: "false" });
  try {
    const { apiKey } = await off.seed();
    const form = new FormData();
    form.append("file", Bun.file(join(SCANNED, "ccitt.pdf")), "ccitt.pdf");
    const r = await fetch(`${off.url}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form });
    expect(r.status).toBe(422);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("no_extractable_text");
  } finally {
    await off.stop();
  }
});

test("an image-only page that yields no text is reported, and pages past the OCR page limit are reported as not read", async () => {
  const pdf = writePdf([
    { lines: ["The harbour ferry leaves pier four at noon every weekday."] },
    { lines: [] },
    { lines: [] },
    { lines: [] },
  ]);
  const parsed = await parseDocument(pdf, {
    maxPages: 10,
    maxInflatedBytes: 1 << 24,
    ocr: { enabled: true, maxPages: 2, timeoutMs: 60_000 },
  });
  expect(parsed.blocks.map((b) => [b.page, b.text])).toEqual([[1, "The harbour ferry leaves pier four at noon every weekday."]]);
  expect(parsed.notes).toEqual([
    { page: 2, code: "ocr_no_text" },
    { page: 3, code: "ocr_no_text" },
    { page: 4, code: "ocr_skipped" },
  ]);
  expect(parsed.ocr).toBeUndefined();
}, 60_000);

test("a scanned two-column page is read column by column, not line by line across the columns", async () => {
  const left = ["The harbour ferry leaves pier four", "at noon on every weekday and", "returns to the old town at six.", "Tickets are sold on board only,", "and bicycles travel for free."];
  const right = ["The museum opens its west wing", "on the first Sunday of spring.", "Guided tours start in the lobby", "every hour from ten until four,", "and children enter without charge."];
  // side by side on the same baselines: reading straight across would interleave them
  const placed = [...left.map((text, i) => ({ x: 72, y: 700 - i * 16, text })), ...right.map((text, i) => ({ x: 330, y: 700 - i * 16, text }))];
  const scanned = await scanPdf(writePdf([{ placed }]));
  const parsed = await parseDocument(scanned, {
    maxPages: 5,
    maxInflatedBytes: 1 << 26,
    ocr: { enabled: true, maxPages: 5, timeoutMs: 120_000 },
  });
  expect(parsed.ocr?.pages).toBe(1);
  const text = parsed.blocks.map((b) => b.text).join("\n");
  const at = (word: string) => text.indexOf(word);
  const order = ["harbour", "weekday", "Tickets", "bicycles", "museum", "Sunday", "lobby", "children"];
  for (const w of order) expect(at(w)).toBeGreaterThanOrEqual(0);
  expect(order.map(at)).toEqual(order.map(at).sort((a, b) => a - b));
}, 120_000);

test("with a model folder of the operator's (DOCCHAT_OCR_TESSDATA), pages are read with its eng.traineddata; a folder without one leaves the pages reported as not readable", async () => {
  const scanned = await scanPdf(writePdf([{ lines: ["The harbour ferry leaves pier four at noon every weekday."] }]));
  const tessdata = mkdtempSync(join(tmpdir(), "docchat-tessdata-"));
  try {
    // the bundled model, unpacked as Tesseract ships its models
    const eng = createRequire(import.meta.url)("@tesseract.js-data/eng") as { langPath: string };
    const packed = await Bun.file(join(`${eng.langPath}_best_int`, "eng.traineddata.gz")).arrayBuffer();
    await Bun.write(join(tessdata, "eng.traineddata"), gunzipSync(packed));
    const read = (folder: string) =>
      parseDocument(scanned, {
        maxPages: 5,
        maxInflatedBytes: 1 << 26,
        ocr: { enabled: true, maxPages: 5, timeoutMs: 120_000, tessdata: folder },
      }).catch((e: { code?: string }) => e.code);
    const parsed = await read(tessdata);
    expect(typeof parsed === "object" && parsed.ocr?.pages).toBe(1);
    expect(typeof parsed === "object" && parsed.blocks.map((b) => b.text).join(" ")).toContain("pier four at noon every weekday");
    expect(await read(join(tessdata, "missing"))).toBe("ocr_unavailable");
  } finally {
    rmSync(tessdata, { recursive: true, force: true });
  }
}, 120_000);

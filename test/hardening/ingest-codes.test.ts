/**
 * Security review round 3, N10: a crashed parse worker was reported as `document_unreadable` (blaming the file
 * for a server fault), a worker over its memory limit as `no_extractable_text`, and a valid DOCX with 60 MB of XML
 * as `document_unreadable`. Now a server fault is 503 `parse_failed` with Retry-After, a document that needs more
 * than one document may have is 422 `document_too_complex`, and the large DOCX parses.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer, useTestServer } from "../helpers/server.ts";
import { buildDocx } from "../ingest/helpers/docx-builder.ts";

const push = (srv: TestServer, key: string, file: File) => {
  const form = new FormData();
  form.set("file", file);
  form.set("train", "false");
  return fetch(`${srv.url}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
};
const errorOf = async (r: Response) => ((await r.json()) as { error: { code: string } }).error.code;

describe("with the default parse limits", () => {
  const srv = useTestServer("sqlite", { DOCCHAT_PARSE_WORKERS: "1" });
  let key: string;
  beforeAll(async () => {
    key = (await srv.seed()).apiKey;
  });

  test("a valid DOCX with 60 MB of XML is stored (201) with every paragraph", async () => {
    const paragraphs = Array.from({ length: 500_000 }, (_, i) => ({
      paragraph: `Paragraph ${i}: the ferry to island ${i} leaves at noon every day.`,
    }));
    const docx = buildDocx([{ heading: 1, text: "Timetable" }, ...paragraphs]);
    const r = await push(srv, key, new File([docx as Uint8Array<ArrayBuffer>], "timetable.docx"));
    expect(r.status).toBe(201);
    const { id, kind } = (await r.json()) as { id: string; kind: string };
    expect(kind).toBe("docx");
    const docs = srv.services.repos.documents;
    const last = await docs.partText(id, "chunks", (await docs.partCount(id, "chunks")) - 1);
    expect(last).toContain("Paragraph 499999: the ferry to island 499999 leaves at noon every day.");
  }, 180_000);

  test("a parse worker that dies under a document is a server fault: 503 parse_failed with Retry-After, and the next upload works", async () => {
    const slow = Array.from({ length: 400_000 }, (_, i) => `Line ${i} of a long text with several words in it.`).join("\n\n");
    const pending = push(srv, key, new File([slow], "slow.txt"));
    // once a worker is parsing it, kill that worker as the kernel's OOM killer would
    const deadline = Date.now() + 60_000;
    let pid: number | undefined;
    while (pid === undefined && Date.now() < deadline) {
      pid = srv.services.parsePool.busyPids()[0];
      if (pid === undefined) await Bun.sleep(5);
    }
    process.kill(pid as number, "SIGKILL");
    const r = await pending;
    expect(r.status).toBe(503);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await errorOf(r)).toBe("parse_failed");
    expect((await push(srv, key, new File(["Opening hours are nine to five."], "hours.txt"))).status).toBe(201);
  }, 120_000);
});

describe("files that are not what their name or content says (new users' mistakes)", () => {
  const srv = useTestServer("sqlite");
  let key: string;
  beforeAll(async () => {
    key = (await srv.seed()).apiKey;
  });

  test("a text file named fake.pdf is refused with 415 saying it holds plain text, not stored as TXT", async () => {
    const r = await push(srv, key, new File(["Opening hours are nine to five."], "fake.pdf"));
    expect(r.status).toBe(415);
    const { error } = (await r.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("unsupported_document");
    expect(error.message).toContain("named .pdf but holds plain text");
    // the same text under its real name is welcome
    expect((await push(srv, key, new File(["Opening hours are nine to five."], "hours.txt"))).status).toBe(201);
  });

  test("an HTML page is refused with 415 naming what to upload instead, whatever it is called", async () => {
    const page = "<!DOCTYPE html>\n<html><head><title>Hours</title></head><body><p>Open nine to five.</p></body></html>";
    for (const name of ["hours.html", "hours.txt"]) {
      const r = await push(srv, key, new File([page], name));
      expect(r.status).toBe(415);
      const { error } = (await r.json()) as { error: { code: string; message: string } };
      expect(error).toMatchObject({ code: "unsupported_document" });
      expect(error.message).toContain("HTML pages are not supported");
    }
  });
});

test("a document that needs more memory than a parse may take is 422 document_too_complex, not no_extractable_text", async () => {
  const srv = await startTestServer({ DOCCHAT_PARSE_MEMORY_MB: "160", DOCCHAT_PARSE_WORKERS: "1" });
  try {
    const { apiKey } = await srv.seed();
    // below the XML reader's threshold, so mammoth reads it: its document model takes far more than 160 MB
    const paragraphs = Array.from({ length: 60_000 }, (_, i) => ({ paragraph: `Paragraph ${i}: a ferry leaves at noon.` }));
    const r = await push(srv, apiKey, new File([buildDocx(paragraphs) as Uint8Array<ArrayBuffer>], "memory.docx"));
    expect(r.status).toBe(422);
    expect(await errorOf(r)).toBe("document_too_complex");
  } finally {
    await srv.stop();
  }
}, 120_000);

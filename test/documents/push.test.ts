import { describe, expect, test } from "bun:test";
import { fixture, sharedDoc } from "../helpers/paths.ts";
import { startTestServer, useTestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";
import { testSql } from "../helpers/test-sql.ts";

describeEngines("document push", (engine) => {
  const srv = useTestServer(engine);

  const push = (key: string, body: unknown) =>
    fetch(`${srv.url}/api/v1/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, ...(body instanceof FormData ? {} : { "content-type": "application/json" }) },
      body: body instanceof FormData ? body : JSON.stringify(body),
    });

  const handbook =
    "Vacation policy\n\nEmployees receive twenty-five days of paid vacation each calendar year. Unused days expire on March 31.\n\nRemote work is allowed two days per week.";

  /** The deployment's chunk rows and keyword-indexed rows, as each engine keeps them. */
  async function indexCounts(deploymentId: string): Promise<{ chunks: number; fts: number }> {
    const sql = testSql(srv.services);
    const chunks = Number(
      (await sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM chunks WHERE deployment_id = ?", [deploymentId]))?.n ?? 0,
    );
    if (srv.engine === "postgres") {
      const fts = await sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM chunks WHERE deployment_id = ? AND kw_length IS NOT NULL", [
        deploymentId,
      ]);
      return { chunks, fts: Number(fts?.n ?? 0) };
    }
    const kw = await sql.get<{ n: number }>("SELECT n FROM keyword_tables WHERE deployment_id = ?", [deploymentId]);
    const fts = kw ? ((await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM kw_${kw.n}_docsize`))?.n ?? 0) : 0;
    return { chunks, fts };
  }

  describe("POST /api/v1/documents", () => {
    test("JSON content with a name is stored, trained within the wait and answered with 200", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const r = await push(apiKey, { content: handbook, name: "handbook.txt" });
      expect(r.status).toBe(200);
      const body = await r.json();
      expect(body.status).toBe("completed");
      expect(body.chunk_count).toBeGreaterThan(0);
      expect(body.kind).toBe("txt");
      expect(body.training_status).toBe("completed");
      expect((await indexCounts(deploymentId)).chunks).toBe(body.chunk_count);
      expect((await srv.services.repos.deployments.findById(deploymentId))?.trainingStatus).toBe("completed");
    });

    test("train=false stores without training and answers 201; training later completes it", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const r = await push(apiKey, { content: handbook, name: "later.txt", train: false });
      expect(r.status).toBe(201);
      const body = await r.json();
      expect(body.status).toBe("stored");
      expect((await indexCounts(deploymentId)).chunks).toBe(0);
      await srv.services.documents.train(deploymentId);
      await srv.services.documents.waitFor([body.id], 10_000);
      expect((await srv.services.repos.documents.get(body.id))?.status).toBe("completed");
    });

    test("a multipart PDF upload in field `file` is sniffed, parsed and trained", async () => {
      const { apiKey } = await srv.seed();
      const form = new FormData();
      form.append("file", new Blob([await Bun.file(sharedDoc("pdf/encrypted/pypdf-unencrypted.pdf")).arrayBuffer()]), "report.bin");
      const r = await push(apiKey, form);
      expect(r.status).toBe(200);
      const body = await r.json();
      expect(body.kind).toBe("pdf");
      expect(body.name).toBe("report.bin");
      expect(body.chunk_count).toBeGreaterThan(0);
    });

    test("the field name `document` is accepted as an alias of `file`, with train given as a form field", async () => {
      const { apiKey } = await srv.seed();
      const form = new FormData();
      form.append("document", new Blob([handbook]), "policy.txt");
      form.append("train", "false");
      const r = await push(apiKey, form);
      expect(r.status).toBe(201);
      expect((await r.json()).status).toBe("stored");
    });

    test("re-pushing identical content under the same name adds no chunks", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const first = await (await push(apiKey, { content: handbook, name: "same.txt" })).json();
      const before = await indexCounts(deploymentId);
      const again = await push(apiKey, { content: handbook, name: "same.txt" });
      expect(again.status).toBe(200);
      const body = await again.json();
      expect(body.unchanged).toBe(true);
      expect(body.id).toBe(first.id);
      expect(await indexCounts(deploymentId)).toEqual(before);
    });

    test("replace=true swaps out the document of the same name; replace=false appends", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      await push(apiKey, { content: handbook, name: "policy.txt" });
      const v2 = await (
        await push(apiKey, { content: "Vacation policy\n\nEmployees receive thirty days of paid vacation.", name: "policy.txt" })
      ).json();
      let docs = await srv.services.documents.list(deploymentId);
      expect(docs.map((d) => d.id)).toEqual([v2.id]);
      await push(apiKey, {
        content: "Travel policy\n\nTrain travel is preferred for trips under four hours.",
        name: "policy.txt",
        replace: false,
      });
      docs = await srv.services.documents.list(deploymentId);
      expect(docs).toHaveLength(2);
      const texts = (await testSql(srv.services).all<{ text: string }>("SELECT text FROM chunks WHERE deployment_id = ?", [deploymentId]))
        .map((r) => r.text)
        .join(" ");
      expect(texts).toContain("thirty days");
      expect(texts).not.toContain("twenty-five");
    });

    test("a push whose training outlasts the wait answers 202 and the status URL later shows completed", async () => {
      const slow = await startTestServer({ DOCCHAT_TRAIN_WAIT_MS: "0" }, { engine });
      try {
        const { apiKey } = await slow.seed();
        const r = await fetch(`${slow.url}/api/v1/documents`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ content: handbook, name: "q.txt" }),
        });
        expect(r.status).toBe(202);
        const body = await r.json();
        expect(["queued", "processing"]).toContain(body.status);
        await slow.services.documents.waitFor([body.id], 10_000);
        const s = await fetch(`${slow.url}${body.status_url}`, { headers: { authorization: `Bearer ${apiKey}` } });
        expect((await s.json()).status).toBe("completed");
      } finally {
        await slow.stop();
      }
    });

    test("unreadable and unsupported files get a 4xx with a stable code and leave nothing behind", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const cases: [string, string][] = [
        [sharedDoc("pdf/encrypted/pypdf-r3-user-password.pdf"), "document_encrypted"],
        [sharedDoc("pdf/malformed/ocrmypdf-invalid.pdf"), "document_unreadable"],
        [sharedDoc("pdf/derived-bad/tracemonkey-truncated-4k.pdf"), "document_unreadable"],
        // a blank page: nothing for the text layer nor for OCR (scanned pages are read now: see ocr.test.ts)
        [fixture("docs/blank-page.pdf"), "no_extractable_text"],
        [sharedDoc("csv/derived-bad/binary-renamed-as.csv"), "document_unreadable"],
      ];
      for (const [path, code] of cases) {
        const form = new FormData();
        form.append("file", new Blob([await Bun.file(path).arrayBuffer()]), path.split("/").pop() as string);
        const r = await push(apiKey, form);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        const body = await r.json();
        expect(typeof body.error.message).toBe("string");
        expect(body.error.code).toBe(code);
      }
      expect(await srv.services.documents.list(deploymentId)).toHaveLength(0);
      expect((await indexCounts(deploymentId)).chunks).toBe(0);
    }, 30_000); // OCR of the blank page is slow on a loaded machine

    test("missing fields and wrong types are 400 bad_request naming the field", async () => {
      const { apiKey } = await srv.seed();
      const noName = await push(apiKey, { content: "hello" });
      expect(noName.status).toBe(400);
      expect((await noName.json()).error.param).toBe("name");
      const badTrain = await push(apiKey, { content: "hello", name: "a.txt", train: "maybe" });
      expect(badTrain.status).toBe(400);
      expect((await badTrain.json()).error.param).toBe("train");
    });

    test("removing a document deletes its chunks and FTS rows, and another deployment cannot see it", async () => {
      const a = await srv.seed();
      const b = await srv.seed();
      // Removal with the key is off unless the owner allows it (the key is public in the widget).
      for (const s of [a, b]) await srv.services.deployments.update(s.deploymentId, { keyManagesDocuments: true });
      const doc = await (await push(a.apiKey, { content: handbook, name: "gone.txt" })).json();
      const peek = await fetch(`${srv.url}/api/v1/documents/${doc.id}`, { headers: { authorization: `Bearer ${b.apiKey}` } });
      expect(peek.status).toBe(404);
      const del = await fetch(`${srv.url}/api/v1/documents/${doc.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${b.apiKey}` },
      });
      expect(del.status).toBe(404);
      const ok = await fetch(`${srv.url}/api/v1/documents/${doc.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${a.apiKey}` },
      });
      expect(ok.status).toBe(200);
      expect(await indexCounts(a.deploymentId)).toEqual({ chunks: 0, fts: 0 });
    });
  });
});

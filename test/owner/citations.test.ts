import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { loadPdfParse } from "../../src/ingest/parsers/pdf-runtime.ts";
import { harbourPdf } from "../helpers/harbour-pdf.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type OwnerClient, signedInOwner } from "./owner-client.ts";

/**
 * Citations that open the page: the chat log keeps where an answer stood (document, page, passage); the owner's
 * viewer opens any of it; a visitor's signed link opens the cited page alone (a one-page PDF cut on the server),
 * expires, and cannot be turned into another page or document.
 */
setDefaultTimeout(60_000);

async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const PDFParse = await loadPdfParse();
  const parser = new PDFParse({ data: bytes.slice(), isEvalSupported: false });
  try {
    return (await parser.getText()).pages.map((p: { text: string }) => p.text.replace(/\s+/g, " "));
  } finally {
    await parser.destroy();
  }
}

let server: TestServer;
let owner: OwnerClient;
let dep = "";
let key = "";
let citation: { document_id: string; chunk_id: number; page_start: number | null; page_end: number | null; quote: string };

beforeAll(async () => {
  server = await startTestServer();
  owner = (await signedInOwner(server)).client;
  const created = await owner.post<{ deployment: { id: string }; api_key: string }>("/deployments", { name: "Harbour" });
  dep = created.body.deployment.id;
  key = created.body.api_key;
  await owner.patch(`/deployments/${dep}`, { published: true });
  const form = new FormData();
  form.append("file", new File([await harbourPdf()], "harbour.pdf"));
  await owner.post(`/deployments/${dep}/documents`, form);
  for (let i = 0; i < 200; i++) {
    const r = await owner.get<{ data: { status: string }[] }>(`/deployments/${dep}/documents`);
    if (r.body.data[0]?.status === "completed") break;
    await Bun.sleep(100);
  }
});
afterAll(() => server.stop());

/** A visitor's question through the API key; the answer must not be a refusal. Its conversation id. */
async function askAnswered(question: string): Promise<string> {
  const r = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: dep, messages: [{ role: "user", content: question }] }),
  });
  const body = (await r.json()) as { conversation_id: string; refused: boolean };
  expect(body.refused).toBe(false);
  return body.conversation_id;
}

test("the chat log keeps the cited page and passage, and the owner's viewer opens it", async () => {
  const conversationId = await askAnswered("When was the lighthouse built?");
  const conv = await owner.get<{ turns: { citations: (typeof citation)[] }[] }>(`/deployments/${dep}/conversations/${conversationId}`);
  citation = conv.body.turns[0]?.citations[0] as typeof citation;
  // the passage that answers runs from the end of page 1 onto page 2, where the answer is
  expect(citation.page_start).toBeLessThanOrEqual(2);
  expect(citation.page_end).toBe(2);
  expect(citation.quote).toContain("1871");
  const view = await owner.get<{ kind: string; page: number; quote: string; file_url: string }>(
    `/deployments/${dep}/documents/${citation.document_id}/citation?chunk=${citation.chunk_id}&page=2`,
  );
  expect(view.body).toMatchObject({ kind: "pdf", page: 2 });
  const file = await owner.call("GET", view.body.file_url);
  expect(file.status).toBe(200);
  expect(file.headers.get("content-type")).toBe("application/pdf");
});

test("a visitor's link opens the cited page only, and cannot be turned into another page or document", async () => {
  const target = { deploymentId: dep, documentId: citation.document_id, chunkId: citation.chunk_id, page: citation.page_start, pageEnd: 2 };
  const span = 2 - (citation.page_start ?? 2) + 1;
  expect(await server.services.citations.link(target, "off")).toBeNull();
  await owner.put(`/deployments/${dep}/policy`, { widget_citations: "page" });
  const link = (await server.services.citations.link(target, "page")) as string;
  const page = await fetch(`${server.url}${link}`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
  const data = (await (await fetch(`${server.url}${link}/data`)).json()) as {
    page: number;
    single_page: boolean;
    file_url: string;
    quote: string;
  };
  expect(data).toMatchObject({ page: citation.page_start, single_page: true });
  expect(data.quote).toContain("1871");
  const pdf = new Uint8Array(await (await fetch(`${server.url}${data.file_url}`)).arrayBuffer());
  const texts = await pdfPages(pdf);
  expect(texts).toHaveLength(span);
  expect(texts.join(" ")).toContain("Margaret Holloway");
  if (span === 1) expect(texts.join(" ")).not.toContain("ferry");
  expect(texts.join(" ")).not.toContain("fish market");

  // another page or another document with the same signature: refused
  const [payload, sig] = link.slice("/cite/".length).split(".");
  const claims = JSON.parse(Buffer.from(payload as string, "base64url").toString());
  for (const changed of [
    { ...claims, p: 3, q: 3 },
    { ...claims, q: 3 },
    { ...claims, f: "doc_other" },
    { ...claims, s: "document" },
    { ...claims, e: claims.e + 3600 },
  ]) {
    const forged = `/cite/${Buffer.from(JSON.stringify(changed)).toString("base64url")}.${sig}`;
    for (const suffix of ["", "/data", "/file.pdf"]) expect((await fetch(`${server.url}${forged}${suffix}`)).status).toBe(404);
  }
  // expired
  const old = (await server.services.citations.link(target, "page", Date.now() - 16 * 60_000)) as string;
  expect((await fetch(`${server.url}${old}/file.pdf`)).status).toBe(404);
  // the owner turns visitor citations off: links stop working at once
  await owner.put(`/deployments/${dep}/policy`, { widget_citations: "off" });
  expect((await fetch(`${server.url}${link}/data`)).status).toBe(404);
});

test("with the whole document allowed, the link serves every page", async () => {
  await owner.put(`/deployments/${dep}/policy`, { widget_citations: "document" });
  const link = (await server.services.citations.link(
    { deploymentId: dep, documentId: citation.document_id, chunkId: citation.chunk_id, page: 2 },
    "document",
  )) as string;
  const data = (await (await fetch(`${server.url}${link}/data`)).json()) as { single_page: boolean; file_url: string };
  expect(data.single_page).toBe(false);
  expect(await pdfPages(new Uint8Array(await (await fetch(`${server.url}${data.file_url}`)).arrayBuffer()))).toHaveLength(3);
});

test("a CSV citation opens at its row, and a visitor's link shows that row only", async () => {
  const csv = ["product,colour,price", "Trail bike,red,1499", "City bike,blue,899", "Kids helmet,green,39", "Cargo trailer,black,349"].join(
    "\n",
  );
  const form = new FormData();
  form.append("file", new File([csv], "prices.csv"));
  await owner.post(`/deployments/${dep}/documents`, form);
  for (let i = 0; i < 200; i++) {
    const r = await owner.get<{ data: { status: string }[] }>(`/deployments/${dep}/documents`);
    if (r.body.data.every((d) => d.status === "completed")) break;
    await Bun.sleep(100);
  }
  const conversationId = await askAnswered("What does the cargo trailer cost?");
  type Cite = { document_id: string; chunk_id: number; row_start: number | null; source: string };
  const conv = await owner.get<{ turns: { citations: Cite[] }[] }>(`/deployments/${dep}/conversations/${conversationId}`);
  const c = conv.body.turns[0]?.citations.find((x) => x.source === "prices") as Cite;
  expect(c.row_start).not.toBeNull();
  type View = { kind: string; cited_id: number; passages: { id: number; text: string; row_start: number | null }[] };
  const view = await owner.get<View>(`/deployments/${dep}/documents/${c.document_id}/citation?chunk=${c.chunk_id}`);
  expect(view.body.kind).toBe("csv");
  const cited = view.body.passages.find((p) => p.id === view.body.cited_id);
  expect(cited?.text).toContain("Cargo trailer");
  await owner.put(`/deployments/${dep}/policy`, { widget_citations: "page" });
  const link = (await server.services.citations.link(
    { deploymentId: dep, documentId: c.document_id, chunkId: c.chunk_id, page: null },
    "page",
  )) as string;
  const data = (await (await fetch(`${server.url}${link}/data`)).json()) as View & { file_url: string | null };
  expect(data.file_url).toBeNull();
  expect(data.passages.map((p) => p.id)).toEqual([c.chunk_id]);
});

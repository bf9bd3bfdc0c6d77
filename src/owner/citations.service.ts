import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { appError } from "../errors/index.ts";
import type {
  Citation,
  ConversationLogsStore,
  DocumentRecord,
  DocumentsStore,
  Passage,
  VisitorDataStore,
  WidgetCitations,
} from "../store/contract/index.ts";

/** How long a visitor's citation link opens its page. */
export const LINK_TTL_SECONDS = 15 * 60;
/** Cut-out pages kept in memory (each a few pages of one PDF). */
const CUT_CACHE = 32;
/** A passage crossing page breaks opens on at most this many pages. */
const MAX_LINK_PAGES = 3;
/** Passages shown around a cited one in a TXT, DOCX or CSV (the owner sees more of the document). */
const AROUND_VISITOR = 0;
const AROUND_OWNER = 40;

/** What a citation link (or the owner's viewer) opens: one document at one passage, and for a PDF one page. */
export interface CiteTarget {
  deploymentId: string;
  documentId: string;
  chunkId: number;
  /** the cited page (PDF), 1-based; null for other kinds */
  page: number | null;
  /** the last page the cited passage runs onto (a passage may cross a page break); the link serves page..pageEnd */
  pageEnd?: number | null;
  /** a visitor link opens the cited page only, unless the owner allows the whole document */
  scope: "page" | "document";
}

export interface CiteView {
  kind: string;
  name: string;
  page: number | null;
  pageEnd: number | null;
  pages: number | null;
  /** the cited passage, verbatim: what the viewer highlights */
  quote: string;
  citedId: number;
  /** TXT, DOCX, CSV: the cited passage and (for the owner) the ones around it, in order */
  passages: Passage[];
  /** PDF: where the viewer loads the file (the single cited page, unless the scope is the document) */
  fileUrl: string | null;
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString("base64url");

/**
 * Citations that open the document: the owner's viewer (any document of their deployment), and visitors' signed,
 * short-lived links (a page for PDFs, the cited passage otherwise). A link's payload — deployment, document,
 * passage, page, scope, expiry — is signed with the deployment's own secret (HMAC-SHA256), so changing any part of
 * it (another page, another document) breaks the signature; the page a link serves is cut out of the PDF on the
 * server, so the rest of the document never reaches the visitor unless the owner allows the whole document.
 */
export function createCitationsService(deps: { data: VisitorDataStore; logs: ConversationLogsStore; documents: DocumentsStore }) {
  // cut pages are kept for a while: a link opened by many visitors (or reloaded) parses its PDF once
  const cut = new Map<string, Promise<Uint8Array>>();
  const secret = async (deploymentId: string) => deps.data.linkSecret(deploymentId, randomBytes(32).toString("hex"));
  const mac = async (deploymentId: string, payload: string) =>
    createHmac("sha256", await secret(deploymentId))
      .update(payload)
      .digest();

  async function view(t: CiteTarget, opts: { owner: boolean; fileUrl: string }): Promise<CiteView> {
    const doc = await deps.documents.getScoped(t.documentId, t.deploymentId);
    const ord = doc ? await deps.logs.passageOrd(t.deploymentId, t.documentId, t.chunkId) : null;
    if (!doc || ord === null) throw appError("not_found", { message: "This passage is no longer in the documents.", param: "citation" });
    const around = opts.owner ? AROUND_OWNER : AROUND_VISITOR;
    const passages = await deps.logs.passages(t.deploymentId, t.documentId, Math.max(0, ord - around), around * 2 + 1);
    const cited = passages.find((p) => p.id === t.chunkId);
    const isPdf = doc.kind === "pdf";
    return {
      kind: doc.kind,
      name: doc.name,
      page: isPdf ? (t.page ?? cited?.pageStart ?? 1) : null,
      pageEnd: isPdf ? (t.pageEnd ?? cited?.pageEnd ?? t.page ?? cited?.pageStart ?? 1) : null,
      pages: doc.pages,
      quote: cited?.text ?? "",
      citedId: t.chunkId,
      // a visitor sees the cited passage only; a PDF is shown as the page itself
      passages: isPdf ? [] : opts.owner || t.scope === "document" ? passages : passages.filter((p) => p.id === t.chunkId),
      fileUrl: isPdf ? opts.fileUrl : null,
    };
  }

  return {
    /** A visitor's link to one cited passage, or null when the owner doesn't let visitors open citations. */
    async link(t: Omit<CiteTarget, "scope">, allowed: WidgetCitations, now = Date.now()): Promise<string | null> {
      if (allowed === "off") return null;
      const payload = b64(
        JSON.stringify({
          d: t.deploymentId,
          f: t.documentId,
          c: t.chunkId,
          p: t.page,
          q: t.pageEnd ?? t.page,
          s: allowed,
          e: Math.floor(now / 1000) + LINK_TTL_SECONDS,
        }),
      );
      return `/cite/${payload}.${b64(await mac(t.deploymentId, payload))}`;
    },
    /**
     * What the widget shows under an answer when the owner lets visitors open citations: each cited passage (up to
     * 3, one per document and page) with its label and a signed link. Empty when citations are off.
     */
    async widgetLinks(
      deploymentId: string,
      hits: Pick<Citation, "documentId" | "chunkId" | "source" | "pageStart" | "pageEnd" | "rowStart">[],
    ): Promise<{ source: string; page: number | null; page_end: number | null; row: number | null; url: string }[]> {
      const allowed = (await deps.data.policy(deploymentId)).widgetCitations;
      if (allowed === "off") return [];
      const seen = new Set<string>();
      const out: { source: string; page: number | null; page_end: number | null; row: number | null; url: string }[] = [];
      for (const h of hits) {
        const k = `${h.documentId}:${h.pageStart ?? h.rowStart ?? h.chunkId}`;
        if (seen.has(k) || out.length >= 3) continue;
        seen.add(k);
        const url = await this.link(
          { deploymentId, documentId: h.documentId, chunkId: h.chunkId, page: h.pageStart, pageEnd: h.pageEnd },
          allowed,
        );
        if (url) out.push({ source: h.source, page: h.pageStart, page_end: h.pageEnd, row: h.rowStart, url });
      }
      return out;
    },
    /** The target of a visitor's link; expired, altered or no-longer-allowed links are refused alike. */
    async verify(token: string, now = Date.now()): Promise<CiteTarget> {
      const gone = () =>
        appError("not_found", { message: "This link has expired or is not valid. Ask the question again for a fresh link." });
      const [payload, sig] = token.split(".");
      if (!payload || !sig || token.length > 2000) throw gone();
      let p: { d?: unknown; f?: unknown; c?: unknown; p?: unknown; q?: unknown; s?: unknown; e?: unknown };
      try {
        p = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        throw gone();
      }
      if (typeof p.d !== "string" || typeof p.f !== "string" || typeof p.c !== "number" || typeof p.e !== "number") throw gone();
      const want = await mac(p.d, payload);
      const got = Buffer.from(sig, "base64url");
      if (got.length !== want.length || !timingSafeEqual(got, want)) throw gone();
      if (p.e * 1000 < now) throw gone();
      // the owner may have turned visitor citations off (or down to the page) since the link was made
      const allowed = (await deps.data.policy(p.d)).widgetCitations;
      if (allowed === "off") throw gone();
      const scope = p.s === "document" && allowed === "document" ? "document" : "page";
      const page = typeof p.p === "number" ? p.p : null;
      const pageEnd = typeof p.q === "number" && page !== null && p.q >= page ? Math.min(p.q, page + MAX_LINK_PAGES - 1) : page;
      return { deploymentId: p.d, documentId: p.f, chunkId: p.c, page, pageEnd, scope };
    },
    view,
    /** The PDF a viewer loads: the cited page alone (a new one-page PDF), or the whole file when the scope allows it. */
    async pdf(t: CiteTarget): Promise<Uint8Array> {
      const doc = await deps.documents.getScoped(t.documentId, t.deploymentId);
      const missing = () => appError("not_found", { message: "This document is not a stored PDF.", param: "citation" });
      if (!doc || doc.kind !== "pdf") throw missing();
      const whole = async () => (await deps.documents.bytes(doc.id)) ?? Promise.reject(missing());
      if (t.scope === "document") return whole();
      const key = `${doc.id}:${doc.contentHash}:${t.page ?? 1}:${t.pageEnd ?? t.page ?? 1}`;
      let pages = cut.get(key);
      if (!pages) {
        pages = whole().then((bytes) => pagesOf(bytes, t.page ?? 1, t.pageEnd ?? t.page ?? 1));
        cut.set(key, pages);
        pages.catch(() => cut.delete(key));
        if (cut.size > CUT_CACHE) cut.delete(cut.keys().next().value as string);
      }
      return pages;
    },
    /** The owner's own copy of a stored document (their viewer and downloads). */
    async file(deploymentId: string, documentId: string): Promise<{ doc: DocumentRecord; bytes: Uint8Array }> {
      const doc = await deps.documents.getScoped(documentId, deploymentId);
      const bytes = doc ? await deps.documents.bytes(doc.id) : null;
      if (!doc || !bytes) throw appError("not_found", { message: "No such document.", param: "document_id" });
      return { doc, bytes };
    },
  };
}

/**
 * The cited pages of a PDF (one, or the few a passage runs across) as a PDF of their own. Links and other annotations
 * are left out: a link's destination would pull other pages (their content) into the copy.
 */
export async function pagesOf(bytes: Uint8Array, first: number, last: number): Promise<Uint8Array> {
  // loaded on first use, from its own entry point in the binary: every CLI command and server start would otherwise
  // load pdf-lib for nothing
  const { PDFDocument, PDFName } = (await import(new URL("./pdf-lib.lazy.ts", import.meta.url).href)) as typeof import("./pdf-lib.lazy.ts");
  let src: Awaited<ReturnType<typeof PDFDocument.load>>;
  try {
    src = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
  } catch {
    throw appError("not_found", { message: "This PDF cannot be opened here.", param: "citation" });
  }
  const count = src.getPageCount();
  const from = Math.min(Math.max(1, first), count);
  const indices = Array.from({ length: Math.min(Math.max(from, last), count) - from + 1 }, (_, i) => from - 1 + i);
  for (const i of indices) for (const key of ["Annots", "B", "StructParents"]) src.getPage(i).node.delete(PDFName.of(key));
  const out = await PDFDocument.create({ updateMetadata: false });
  for (const copy of await out.copyPages(src, indices)) out.addPage(copy);
  return out.save();
}

export type CitationsService = ReturnType<typeof createCitationsService>;

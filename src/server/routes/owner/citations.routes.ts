import { Elysia, t } from "elysia";
// pdf.js's browser build and its worker, inside the binary: the viewer never loads anything from elsewhere. Embedded
// as files (read when asked for), not as 1.4 MB of strings in the code every start of the binary would load.
import pdfJs from "../../../../node_modules/pdfjs-dist/build/pdf.min.mjs" with { type: "file" };
import pdfWorker from "../../../../node_modules/pdfjs-dist/build/pdf.worker.min.mjs" with { type: "file" };
import type { Services } from "../../../app.ts";
import type { CiteTarget, CiteView } from "../../../owner/citations.service.ts";
import { webAssets } from "../../../web/generated/web-assets.ts";
import { CONSOLE_CSP } from "../system/console.routes.ts";
import type { OwnerGuard } from "./owner-guard.ts";

const PAGE_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  // a link found in a log or a history should not be indexed or cached by anyone on the way
  "x-robots-tag": "noindex, nofollow",
};

export const citeViewJson = (v: CiteView, opts: { singlePage: boolean }) => ({
  kind: v.kind,
  name: v.name,
  page: v.page,
  page_end: v.pageEnd,
  pages: v.pages,
  quote: v.quote,
  cited_id: v.citedId,
  passages: v.passages.map((p) => ({
    id: p.id,
    text: p.text,
    heading_path: p.headingPath,
    page_start: p.pageStart,
    row_start: p.rowStart,
    row_end: p.rowEnd,
  })),
  file_url: v.fileUrl,
  single_page: opts.singlePage,
});

const SHELL = (v: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Cited passage</title>
<link rel="stylesheet" href="/viewer/viewer.css?v=${v}">
<script src="/viewer/viewer.js?v=${v}" defer></script>
</head>
<body>
<div id="viewer"><p>Loading the cited passage…</p></div>
<noscript>The viewer needs JavaScript.</noscript>
</body>
</html>
`;

const asset = (body: string | Blob, type: string) =>
  new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" } });
const pdf = (bytes: Uint8Array, name: string) =>
  new Response(bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": "application/pdf",
      "content-disposition": `inline; filename="${name.replace(/[^\w.-]+/g, "_")}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });

/**
 * Citations that open the document. Visitors: `/cite/<token>` (the viewer page), `/data` (what it shows) and
 * `/file.pdf` (the cited page alone, as a PDF), all from the signed token only. Owners: the same view of any passage
 * of their own documents, and the stored file. pdf.js is served from /viewer/.
 */
export function citationRoutes(services: Services, guard: OwnerGuard) {
  const hide = { detail: { hide: true } };
  const token = t.Object({ token: t.String({ maxLength: 2000 }) });
  const visitorView = async (target: CiteTarget, tok: string) =>
    citeViewJson(await services.citations.view(target, { owner: false, fileUrl: `/cite/${tok}/file.pdf` }), {
      singlePage: target.scope === "page",
    });
  return new Elysia({ name: "citations" })
    .get("/viewer/pdf.mjs", () => asset(Bun.file(pdfJs), "text/javascript; charset=utf-8"), hide)
    .get("/viewer/pdf.worker.mjs", () => asset(Bun.file(pdfWorker), "text/javascript; charset=utf-8"), hide)
    .get("/viewer/viewer.js", () => asset(webAssets.viewerJs, "text/javascript; charset=utf-8"), hide)
    .get("/viewer/viewer.css", () => asset(webAssets.viewerCss, "text/css; charset=utf-8"), hide)
    .get(
      "/cite/:token",
      async ({ params }) => {
        await services.citations.verify(params.token);
        return new Response(SHELL(webAssets.version), { headers: { "content-type": "text/html; charset=utf-8", ...PAGE_HEADERS } });
      },
      { params: token, ...hide },
    )
    .get(
      "/cite/:token/data",
      async ({ params, set }) => {
        Object.assign(set.headers, { "cache-control": "no-store", "x-robots-tag": "noindex" });
        return visitorView(await services.citations.verify(params.token), params.token);
      },
      { params: token, ...hide },
    )
    .get(
      "/cite/:token/file.pdf",
      async ({ params }) => {
        const target = await services.citations.verify(params.token);
        return pdf(await services.citations.pdf(target), `page-${target.page ?? 1}.pdf`);
      },
      { params: token, ...hide },
    )
    .get(
      "/owner/api/deployments/:id/documents/:documentId/citation",
      async ({ request, params, query }) => {
        const { deployment } = await guard.deployment(request, params.id);
        const target = {
          deploymentId: deployment.id,
          documentId: params.documentId,
          chunkId: query.chunk,
          page: query.page ?? null,
          scope: "document" as const,
        };
        const fileUrl = `/owner/api/deployments/${encodeURIComponent(deployment.id)}/documents/${encodeURIComponent(params.documentId)}/file`;
        return citeViewJson(await services.citations.view(target, { owner: true, fileUrl }), { singlePage: false });
      },
      {
        params: t.Object({ id: t.String({ maxLength: 100 }), documentId: t.String({ maxLength: 100 }) }),
        query: t.Object({ chunk: t.Numeric({ minimum: 1 }), page: t.Optional(t.Numeric({ minimum: 1 })) }),
        detail: { summary: "A cited passage as the viewer shows it (the document at the page or passage)", tags: ["documents"] },
      },
    )
    .get(
      "/owner/api/deployments/:id/documents/:documentId/file",
      async ({ request, params }) => {
        const { deployment } = await guard.deployment(request, params.id);
        const f = await services.citations.file(deployment.id, params.documentId);
        if (f.doc.kind === "pdf") return pdf(f.bytes, f.doc.name);
        return new Response(f.bytes as Uint8Array<ArrayBuffer>, {
          headers: {
            "content-type": "application/octet-stream",
            "content-disposition": `attachment; filename="${f.doc.name.replace(/[^\w.-]+/g, "_")}"`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        params: t.Object({ id: t.String({ maxLength: 100 }), documentId: t.String({ maxLength: 100 }) }),
        detail: { summary: "The stored document as uploaded (PDFs open inline)", tags: ["documents"] },
      },
    );
}

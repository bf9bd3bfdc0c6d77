import { Elysia } from "elysia";
import { webAssets } from "../../../web/generated/web-assets.ts";

/**
 * The owner console (one HTML shell + its bundled script and stylesheet) and the visitor widget script, all
 * embedded in the program (src/web/generated). Console pages get a strict CSP: only this origin's own script
 * and style, no inline code, no framing.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const CONSOLE_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
};

const v = webAssets.version;
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#3f5bd8"/><text x="16" y="22" font-family="system-ui,sans-serif" font-size="18" font-weight="800" fill="#fff" text-anchor="middle">d</text></svg>`;
const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>docchat console</title>
<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/app.css?v=${v}">
<script src="/console/app.js?v=${v}" defer></script>
</head>
<body>
<div id="app"></div>
<noscript>The docchat console needs JavaScript.</noscript>
</body>
</html>
`;

function asset(body: string, type: string, request: Request, extra: Record<string, string> = CONSOLE_HEADERS): Response {
  const etag = `"${v}"`;
  const headers = { "content-type": type, etag, "cache-control": "no-cache", "x-content-type-options": "nosniff", ...extra };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  return new Response(body, { headers });
}

export function consoleRoutes() {
  const shell = (request: Request) =>
    asset(SHELL, "text/html; charset=utf-8", request, { ...CONSOLE_HEADERS, "cache-control": "no-store" });
  const home = () => new Response(null, { status: 302, headers: { location: "/console/" } });
  return new Elysia({ name: "console" })
    .get("/", home, { detail: { hide: true } })
    .get("/console", ({ request }) => shell(request), { detail: { hide: true } })
    .get("/console/", ({ request }) => shell(request), { detail: { hide: true } })
    .get("/console/app.js", ({ request }) => asset(webAssets.consoleJs, "text/javascript; charset=utf-8", request), {
      detail: { hide: true },
    })
    .get("/console/app.css", ({ request }) => asset(webAssets.consoleCss, "text/css; charset=utf-8", request), { detail: { hide: true } })
    .get("/console/favicon.svg", ({ request }) => asset(FAVICON, "image/svg+xml", request), { detail: { hide: true } })
    .get(
      "/widget.js",
      ({ request }) =>
        asset(webAssets.widgetJs, "text/javascript; charset=utf-8", request, {
          // Loaded by other sites' pages: allowed cross-origin, cached briefly so a new version spreads within minutes.
          "cache-control": "public, max-age=300",
          "cross-origin-resource-policy": "cross-origin",
          "access-control-allow-origin": "*",
        }),
      { detail: { hide: true } },
    );
}

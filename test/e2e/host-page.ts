/**
 * A stand-in for an owner's website on another origin: one page with the widget tag and deliberately hostile
 * CSS (global !important rules), to show the widget's shadow DOM keeps its own look.
 */
export function hostPageServer(docchatUrl: string) {
  let key = "";
  const page = () => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme Bikes</title>
<style>
  * { color: #c00 !important; font-family: "Courier New", monospace !important; font-size: 22px !important; line-height: 2.5 !important; }
  div, button { display: inline !important; border: 4px dotted magenta !important; background: yellow !important; }
  body { margin: 0; padding: 2rem; background: #fdf6e3; }
</style>
</head>
<body>
<h1>Acme Bikes</h1>
<p>Welcome to our shop. Questions? Use the chat button.</p>
<div class="content">Host page content</div>
<script src="${docchatUrl}/widget.js" data-key="${key}" defer></script>
</body>
</html>`;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response(page(), { headers: { "content-type": "text/html; charset=utf-8" } }),
  });
  return {
    url: `http://127.0.0.1:${server.port}/`,
    setKey(k: string) {
      key = k;
    },
    stop() {
      server.stop(true);
    },
  };
}

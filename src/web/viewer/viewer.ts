import { type CiteData, renderCitation } from "../shared/citation-view.ts";
import { clear, h } from "../shared/dom.ts";

/**
 * The page a visitor's citation link opens (`/cite/<signed token>`): the cited page of a PDF with the passage
 * highlighted, or the cited row or passage of a CSV, DOCX or TXT. The token in the address is all it knows.
 */
async function start(): Promise<void> {
  const root = document.getElementById("viewer") as HTMLElement;
  const base = location.pathname.replace(/\/+$/, "");
  let d: CiteData;
  try {
    const r = await fetch(`${base}/data`, { credentials: "omit" });
    const body = (await r.json()) as CiteData & { error?: { message?: string } };
    if (!r.ok) throw new Error(body.error?.message ?? "This link cannot be opened.");
    d = body;
  } catch (e) {
    clear(root, h("p", { class: "alert alert-error", role: "alert" }, (e as Error).message));
    return;
  }
  const pages = d.page ? (d.page_end && d.page_end > d.page ? `Pages ${d.page}–${d.page_end}` : `Page ${d.page}`) : "";
  document.title = `${d.name}${pages ? ` · ${pages.toLowerCase()}` : ""}`;
  const box = h("div", { class: "viewer-box", tabindex: 0, role: "region", "aria-label": "Cited document" });
  clear(
    root,
    h(
      "header",
      { class: "viewer-head" },
      h("h1", null, d.name),
      h(
        "p",
        { class: "muted" },
        pages
          ? `${pages}${d.pages ? ` of ${d.pages}` : ""} · the highlighted passage is the one cited`
          : "The highlighted passage is the one cited",
      ),
    ),
    h("main", null, box),
  );
  await renderCitation(box, d).catch((e: Error) => clear(box, h("p", { class: "alert alert-error", role: "alert" }, e.message)));
}

void start();

import { type CiteData, citationLabel, renderCitation } from "../shared/citation-view.ts";
import { clear, h } from "../shared/dom.ts";
import { api, errorText } from "./api.ts";
import type { Citation } from "./types.ts";

/**
 * Opens a citation in a modal dialog: the document at the cited page (PDF, passage highlighted) or at the cited
 * row or passage. A native <dialog>: focus moves in, Escape closes it, focus goes back to the citation.
 */
export function openCitation(deploymentId: string, c: Citation): void {
  const box = h(
    "div",
    { class: "viewer-box", tabindex: 0, role: "region", "aria-label": "Cited document" },
    h("p", { class: "loading" }, h("span", { class: "spinner" }), " Opening the document…"),
  );
  const close = h("button", { class: "btn btn-sm", type: "button" }, "Close");
  const dialog = h(
    "dialog",
    { class: "viewer-dialog", "aria-labelledby": "viewer-title" },
    h("div", { class: "card-row" }, h("h2", { id: "viewer-title" }, citationLabel(c)), close),
    h("p", { class: "muted small" }, "The highlighted passage is the one the answer cited."),
    box,
  );
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  const q = new URLSearchParams({ chunk: String(c.chunk_id) });
  if (c.page_start !== null) q.set("page", String(c.page_start));
  const path = `/deployments/${encodeURIComponent(deploymentId)}/documents/${encodeURIComponent(c.document_id)}/citation?${q}`;
  api<CiteData>("GET", path)
    .then((d) => renderCitation(box, d))
    .catch((e: unknown) => clear(box, h("div", { class: "alert alert-error", role: "alert" }, errorText(e))));
}

/** A citation as a button that opens it. */
export function citationButton(deploymentId: string, c: Citation): HTMLElement {
  return h(
    "button",
    { class: "chip citation", type: "button", title: c.quote.slice(0, 200), onclick: () => openCitation(deploymentId, c) },
    citationLabel(c),
  );
}

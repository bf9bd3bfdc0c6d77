import { alertBox, clear, dataTable, emptyState, h } from "../../shared/dom.ts";
import { api, errorText } from "../api.ts";
import { bytes, dateTime } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import type { Deployment, DocumentItem, DocumentList } from "../types.ts";
import { isBusy, trainingBadge } from "./status.ts";

const ACCEPT =
  ".pdf,.docx,.txt,.csv,application/pdf,text/plain,text/csv,application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const POLL_MS = 1000;

type Reading = NonNullable<DocumentList["reading"]>[number];

/** An upload the server is still reading: Processing, with pages so far for a long PDF. */
function readingRow(r: Reading): HTMLElement {
  const pages = r.total > 1 ? `${r.ocr ? "reading scanned page" : "page"} ${r.done} of ${r.total}` : "reading…";
  return h(
    "tr",
    { "data-status": "processing" },
    h("td", { class: "wrap" }, h("span", { class: "doc-name" }, r.name)),
    h("td", null, trainingBadge("processing"), h("p", { class: "muted small", "data-testid": "doc-reading" }, pages)),
    h("td", { class: "hide-sm" }),
    h("td", { class: "hide-sm" }),
    h("td", { class: "hide-sm" }),
    h("td", { class: "hide-sm" }),
    h("td", null),
  );
}

function table(docs: DocumentItem[], onRemove: (d: DocumentItem) => void, reading: Reading[] = []): HTMLElement {
  if (!docs.length && !reading.length)
    return emptyState(
      "No documents yet",
      "Drop PDF, DOCX, TXT or CSV files above. Training starts by itself; the deployment can answer once it reaches Completed.",
    );
  const small = (label: string) => ({ label, class: "hide-sm" });
  return dataTable(
    ["Name", "Status", small("Size"), small("Passages"), small("Language"), small("Added"), ""],
    h(
      "tbody",
      null,
      reading.map(readingRow),
      docs.map((d) =>
        h(
          "tr",
          { "data-status": d.status },
          h(
            "td",
            { class: "wrap" },
            h("span", { class: "doc-name" }, d.name),
            h("span", { class: "muted small" }, ` ${d.kind.toUpperCase()}`),
            d.origin === "key" ? h("span", { class: "muted small", title: "Pushed with the API key" }, " · pushed with key") : null,
          ),
          h(
            "td",
            null,
            trainingBadge(d.status),
            progressLine(d),
            d.error ? h("p", { class: "error-text small" }, d.error.message ?? d.error.code) : null,
            ocrLine(d),
            notesList(d),
          ),
          h("td", { class: "hide-sm nowrap" }, bytes(d.size)),
          h("td", { class: "hide-sm" }, String(d.chunk_count)),
          h("td", { class: "hide-sm", "data-testid": "doc-lang" }, d.lang ?? "—"),
          h("td", { class: "hide-sm" }, dateTime(d.created_at)),
          h("td", { class: "right" }, h("button", { class: "btn btn-ghost btn-sm", type: "button", onclick: () => onRemove(d) }, "Remove")),
        ),
      ),
    ),
  );
}

/** Processing a large document: how far indexing has got. */
function progressLine(d: DocumentItem): HTMLElement | null {
  if (d.status !== "processing" || !d.progress) return null;
  const pct = Math.floor((100 * d.progress.done) / Math.max(1, d.progress.total));
  return h("p", { class: "muted small", "data-testid": "doc-progress" }, `${pct}% indexed${d.pages ? ` · ${d.pages} pages` : ""}`);
}

/** Pages read from images: how many, and how sure the reader was. */
function ocrLine(d: DocumentItem): HTMLElement | null {
  if (!d.ocr) return null;
  const confidence = d.ocr_confidence === null ? "" : ` · ${Math.round(d.ocr_confidence)}% confidence`;
  return h(
    "p",
    { class: "muted small", "data-testid": "doc-ocr" },
    `OCR: ${d.ocr_pages} page${d.ocr_pages === 1 ? "" : "s"} read from images${confidence}`,
  );
}

const NOTE_TEXT: Record<string, string> = {
  ocr_low_confidence: "read with low confidence; check the answers that cite it",
  ocr_no_text: "no text found on this scanned page",
  ocr_skipped: "scanned page not read (OCR page or time limit)",
  ocr_unavailable: "scanned page not read: OCR is not available in this build",
};

function notesList(d: DocumentItem): HTMLElement | null {
  if (!d.notes.length) return null;
  const shown = d.notes
    .slice(0, 5)
    .map((n) =>
      h("li", null, `Page ${n.page}: ${NOTE_TEXT[n.code] ?? n.code}${n.confidence === undefined ? "" : ` (${Math.round(n.confidence)}%)`}`),
    );
  const more = d.notes.length > 5 ? h("li", null, `…and ${d.notes.length - 5} more pages`) : null;
  return h("ul", { class: "small warn-text", "data-testid": "doc-notes" }, shown, more);
}

function dropZone(onFiles: (files: File[]) => void): HTMLElement {
  const input = h("input", { type: "file", accept: ACCEPT, multiple: true, class: "visually-hidden", id: "file-picker" });
  input.addEventListener("change", () => {
    onFiles([...(input.files ?? [])]);
    input.value = "";
  });
  const zone = h(
    "div",
    { class: "dropzone", "data-testid": "dropzone" },
    h("p", { class: "dropzone-title" }, "Drag and drop documents here"),
    h("p", { class: "muted" }, "PDF, DOCX, TXT or CSV · or ", h("label", { for: "file-picker", class: "link" }, "choose files"), "."),
    input,
  );
  zone.addEventListener("dragover", (e) => {
    e.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    onFiles([...(e.dataTransfer?.files ?? [])]);
  });
  return zone;
}

/** What an upload's message says, from the document's status as last seen (never "started" once it finished). */
function uploadNote(name: string, doc: Pick<DocumentItem, "status" | "error">, unchanged = false, published = true): HTMLElement {
  if (unchanged) return alertBox(`${name} is already there, unchanged.`, "success");
  if (doc.status === "completed")
    return alertBox(
      published
        ? `${name} uploaded and trained: answers use it now.`
        : `${name} uploaded and trained. Publish the deployment in Settings so visitors get answers from it.`,
      "success",
    );
  if (doc.status === "failed") return alertBox(`${name} could not be trained: ${doc.error?.message ?? doc.error?.code ?? "unknown error"}`);
  if (doc.status === "stored") return alertBox(`${name} stored, not trained yet.`, "info");
  return alertBox(`${name} uploaded; training…`, "info");
}

function body(ctx: PageContext, d: Deployment): Node {
  const path = `/deployments/${encodeURIComponent(d.id)}`;
  const status = h("div", { class: "stack" });
  const banner = h("div", { class: "training-line" });
  const list = h("div");
  let timer: ReturnType<typeof setTimeout> | undefined;
  ctx.onLeave(() => clearTimeout(timer));
  /** upload messages still waiting for their document's training to end, by document id */
  const pending = new Map<string, { note: HTMLElement; name: string }>();

  const show = (r: DocumentList) => {
    for (const [id, p] of pending) {
      const doc = r.data.find((x) => x.id === id);
      if (doc && isBusy(doc.status)) continue;
      if (doc) p.note.replaceWith(uploadNote(p.name, doc, false, d.published));
      pending.delete(id);
    }
    clear(banner, "Deployment training: ", trainingBadge(r.training_status));
    clear(list, table(r.data, remove, r.reading ?? []));
    clearTimeout(timer);
    // Live progress: keep polling while anything is being read, queued or processed.
    if ((r.reading ?? []).length > 0 || isBusy(r.training_status) || r.data.some((x) => isBusy(x.status)))
      timer = setTimeout(refresh, POLL_MS);
  };
  const refresh = async () => {
    if (!ctx.isCurrent()) return;
    try {
      show(await api<DocumentList>("GET", `${path}/documents`));
    } catch (err) {
      clear(status, alertBox(errorText(err)));
    }
  };
  const remove = async (doc: DocumentItem) => {
    if (!confirm(`Remove “${doc.name}”? Answers stop using it at once.`)) return;
    try {
      show(await api<DocumentList>("DELETE", `${path}/documents/${encodeURIComponent(doc.id)}`));
    } catch (err) {
      clear(status, alertBox(errorText(err)));
    }
  };
  const upload = async (files: File[]) => {
    clear(status);
    for (const file of files) {
      const note = alertBox(`Uploading and reading ${file.name}…`, "info");
      status.append(note);
      const form = new FormData();
      form.append("file", file, file.name);
      try {
        const sent = api<{ unchanged: boolean; document: DocumentItem }>("POST", `${path}/documents`, form);
        // while the server reads a long PDF, the list shows its page progress
        setTimeout(refresh, 300);
        const r = await sent;
        const next = uploadNote(file.name, r.document, r.unchanged, d.published);
        note.replaceWith(next);
        if (!r.unchanged && isBusy(r.document.status)) pending.set(r.document.id, { note: next, name: file.name });
      } catch (err) {
        note.replaceWith(alertBox(`${file.name}: ${errorText(err)}`));
      }
      await refresh();
    }
  };
  void refresh();
  const note =
    d.kind === "private_gpt"
      ? h("p", { class: "alert alert-info" }, "This is a Private GPT deployment: it answers from its persona and does not use documents.")
      : null;
  return h(
    "div",
    { class: "stack" },
    note,
    dropZone(upload),
    status,
    h("section", { class: "card" }, h("div", { class: "card-row" }, h("h2", null, "Documents"), banner), list),
  );
}

export function documentsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "documents", (d) => body(ctx, d));
}

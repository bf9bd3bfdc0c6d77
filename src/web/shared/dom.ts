/**
 * The console's only way to build DOM. Text always goes in as text nodes (never parsed as HTML), event
 * handlers as listeners, and there is no innerHTML anywhere, so visitor and document text stays inert.
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown>;

const PROPS = new Set(["value", "checked", "disabled", "selected", "multiple", "readOnly", "required", "hidden"]);

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (k === "class") el.className = String(v);
    else if (PROPS.has(k)) (el as unknown as Record<string, unknown>)[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

export function clear(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A form field with its label and an optional hint. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("p", { class: "hint" }, hint) : null);
}

export function badge(text: string, tone: "ok" | "warn" | "bad" | "busy" | "muted"): HTMLElement {
  return h("span", { class: `badge badge-${tone}` }, tone === "busy" ? h("span", { class: "spinner", "aria-hidden": "true" }) : null, text);
}

/** A column of a data table: its heading, and "hide-sm" when it is left out on small screens. */
export type Column = string | { label: string; class: string };

/** A data table's headings, with what else its table and its wrapper carry. */
export interface TableSpec {
  columns: Column[];
  /** the table's data-testid */
  testid?: string;
  /** the table's class, "table" unless given */
  class?: string;
  /** inside the wrapper, before and after the table (a status line, a "show more" row) */
  before?: Child;
  after?: Child;
}

/** A data table in its scrolling wrapper: the headings, then the body rows (a tbody, or the rows themselves). */
export function dataTable(spec: Column[] | TableSpec, ...body: Child[]): HTMLElement {
  const s = Array.isArray(spec) ? { columns: spec } : spec;
  const heads = s.columns.map((c) => (typeof c === "string" ? h("th", null, c) : h("th", { class: c.class }, c.label)));
  const table = h("table", { class: s.class ?? "table", "data-testid": s.testid }, h("thead", null, h("tr", null, ...heads)), ...body);
  return h("div", { class: "table-wrap" }, s.before, table, s.after);
}

export function emptyState(title: string, text: string, ...actions: Child[]): HTMLElement {
  return h("div", { class: "empty" }, h("p", { class: "empty-title" }, title), h("p", null, text), ...actions);
}

export function alertBox(message: string, tone: "error" | "info" | "success" = "error"): HTMLElement {
  return h("div", { class: `alert alert-${tone}`, role: tone === "error" ? "alert" : "status" }, message);
}

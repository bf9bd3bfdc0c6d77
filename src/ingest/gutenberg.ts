import type { DocumentMeta } from "./types.ts";

/**
 * Project Gutenberg's plain-text books: the header before "*** START OF …" holds the book's facts (Title, Author,
 * Release date, Credits …) and a licence notice; everything after "*** END OF …" is the licence. The facts become
 * the document card and the rest of the header and the licence are dropped, so neither answers a question about
 * the book ("Who is the author?" was answered with the START/END lines).
 */
const START = /^\s*\*{3}\s*START OF (THE|THIS) PROJECT GUTENBERG E-?BOOK\b.*$/im;
const END = /^\s*\*{3}\s*END OF (THE|THIS) PROJECT GUTENBERG E-?BOOK\b.*$/im;
const FIELD = /^([A-Z][A-Za-z ]{2,30}):\s*(\S.*)$/;
/** "Produced by …" lines that some books carry just after the START line */
const PRODUCED = /^(produced by|e-?text prepared by|transcribed by)\s+(.+)$/i;
const MAX_VALUE = 300;

export function splitGutenberg(text: string): { body: string; meta: DocumentMeta } | null {
  const start = START.exec(text);
  if (!start || start.index > 20_000) return null;
  const header = text.slice(0, start.index);
  let body = text.slice(start.index + start[0].length);
  const end = END.exec(body);
  if (end) body = body.slice(0, end.index).replace(/\n\s*End of (the )?Project Gutenberg.*\s*$/i, "\n");
  const fields: DocumentMeta["fields"] = [{ label: "Publisher", value: "Project Gutenberg" }];
  let last: { label: string; value: string } | null = null;
  for (const raw of header.split("\n")) {
    const line = raw.trim();
    const m = FIELD.exec(line);
    if (m?.[1] && m[2]) {
      last = { label: m[1].trim(), value: m[2].trim() };
      fields.push(last);
    } else if (line && last && /^\s/.test(raw) && last.value.length < MAX_VALUE) {
      // a field continued on an indented line ("Most recently updated: …" under "Release date")
      last.value = `${last.value} ${line}`;
    } else last = null;
  }
  // "Produced by …" right after the START line is a credit, not part of the book
  const lines = body.split("\n");
  for (let i = 0; i < Math.min(lines.length, 40); i++) {
    const m = PRODUCED.exec(lines[i]?.trim() ?? "");
    if (!m?.[2]) continue;
    let value = m[2].trim();
    const j = i + 1;
    while (j < lines.length && (lines[j] ?? "").trim() !== "" && value.length < MAX_VALUE) value += ` ${(lines[j] ?? "").trim()}`;
    fields.push({ label: "Credits", value });
    lines.splice(i, j - i);
    body = lines.join("\n");
    break;
  }
  return { body, meta: { fields: fields.map((f) => ({ label: f.label, value: f.value.slice(0, MAX_VALUE) })) } };
}

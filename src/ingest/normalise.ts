/**
 * Text clean-up shared by every parser, so that the same words index the same way whatever the source
 * format: Unicode NFC, no invisible characters, one kind of line break, collapsed blanks.
 */

// C0/C1 controls except \t and \n, zero-width and bidi marks, soft hyphen, BOM, and the replacement char
// left behind by broken byte sequences.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufffd]/g;

export function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/[\u2028\u2029\u000b\u000c\u0085]/g, "\n");
}

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, "");
}

/** One line of prose: every run of whitespace (newlines included) becomes one space. */
export function normaliseInline(text: string): string {
  return stripInvisible(normaliseNewlines(text).normalize("NFC")).replace(/\s+/g, " ").trim();
}

/** Keeps line structure (tables, lists) but collapses blanks inside lines and drops empty lines. */
export function normaliseLines(text: string): string {
  return stripInvisible(normaliseNewlines(text).normalize("NFC"))
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line.length > 0)
    .join("\n");
}

/** Whole-document pass before splitting into paragraphs: keeps \n and \t, removes the rest. */
export function normaliseDocumentText(text: string): string {
  return stripInvisible(normaliseNewlines(text).normalize("NFC"));
}

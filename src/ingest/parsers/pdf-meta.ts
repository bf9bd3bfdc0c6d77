import type { DocumentMeta } from "../types.ts";
import type { RunningLine } from "./pdf-furniture.ts";

type Field = DocumentMeta["fields"][number];

/** Titles that name a file or a template, not the document. */
const JUNK_TITLE = /\.(?:exe|docx?|pdf|rtf|indd|tex|dvi|ps|qxd|xlsx?|pptx?)$|^(?:untitled|microsoft word|document\d*|slide \d+)\b/i;
const MAX_VALUE = 300;

/**
 * Title, author, subject and creation date from a PDF's document information dictionary, when they look like
 * something a reader would call the document's (a title of "10811.exe" or "Microsoft Word - draft.doc" does not).
 */
export function infoFields(info: unknown): Field[] {
  const dict = (info && typeof info === "object" ? info : {}) as Record<string, unknown>;
  const text = (key: string) => {
    const v = dict[key];
    return typeof v === "string" ? v.replace(/\s+/g, " ").trim().slice(0, MAX_VALUE) : "";
  };
  const fields: Field[] = [];
  const title = text("Title");
  if (/\p{L}{3}/u.test(title) && !JUNK_TITLE.test(title)) fields.push({ label: "Title", value: title });
  // a lone word ("Supreme", "admin") is an account name, not an author
  const author = text("Author");
  if (/\p{L}{2}/u.test(author) && author.includes(" ")) fields.push({ label: "Author", value: author });
  const subject = text("Subject");
  if (/\p{L}{3}/u.test(subject)) fields.push({ label: "Subject", value: subject });
  const date = /^D:(\d{4})(\d{2})?(\d{2})?/.exec(text("CreationDate"));
  if (date?.[1]) fields.push({ label: "Created", value: [date[1], date[2], date[3]].filter(Boolean).join("-") });
  return fields;
}

/**
 * The running header and footer lines as fields: they often carry the title, the date or the version
 * ("Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020", "GNU Bash 5.2 2022 September 19").
 * A printer's slug made mostly of codes and numbers ("VerDate Sep<11>2014 ... Frm 00001") says nothing a reader asks.
 */
export function runningFields(lines: RunningLine[]): Field[] {
  return lines
    .filter(({ text }) => {
      const words = text.split(/\s+/);
      return words.filter((w) => /\d/.test(w)).length <= 0.6 * words.length;
    })
    .map(({ text, top }) => ({ label: top ? "Page header" : "Page footer", value: text.slice(0, MAX_VALUE) }));
}

/**
 * The title printed on the first page when the information dictionary has none, or when the printed one says
 * more ("Einführung in die Geometrie und Topologie" for "Geometrie und Topologie").
 */
export function withPrintedTitle(fields: Field[], printed: string | undefined): Field[] {
  if (!printed || !/\p{L}{3}/u.test(printed) || printed.split(/\s+/).length > 15) return fields;
  const title = { label: "Title", value: printed.slice(0, MAX_VALUE) };
  const recorded = fields.find((f) => f.label === "Title");
  if (!recorded) return [title, ...fields];
  const more = printed.length > recorded.value.length && printed.toLowerCase().includes(recorded.value.toLowerCase());
  return more ? fields.map((f) => (f === recorded ? title : f)) : fields;
}

const MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";
/**
 * A line that is a date and nothing else: "October 14, 1998", "14 October 1998", "March 2020", "1998-10-14",
 * "14.10.1998" — the dateline under a title, which says when the document was written.
 */
export const DATE_LINE = new RegExp(
  String.raw`^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:(?:${MONTHS})\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\.?\s+(?:${MONTHS})\.?,?\s+\d{4}|(?:${MONTHS})\.?\s+\d{4}|\d{4}-\d{2}-\d{2}|\d{1,2}\.\d{1,2}\.\d{4})$`,
  "i",
);

/** The first page's dateline among its first lines, as the card's "Date" field. */
export function printedDate(firstLines: string[]): Field[] {
  const date = firstLines.slice(0, DATELINE_WITHIN).find((l) => DATE_LINE.test(l.trim()));
  return date ? [{ label: "Date", value: date.trim() }] : [];
}
/** how far down the first page a dateline may stand (after a title, an author, an affiliation) */
const DATELINE_WITHIN = 8;

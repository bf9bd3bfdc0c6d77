import type { DocumentMeta } from "../types.ts";

/** Titles that name a file or a template, not the document. */
const JUNK_TITLE = /\.(?:exe|docx?|pdf|rtf|indd|tex|dvi|ps|qxd|xlsx?|pptx?)$|^(?:untitled|microsoft word|document\d*|slide \d+)\b/i;

/**
 * Title, author and creation date from a PDF's document information dictionary, when they look like
 * something a reader would call the document's (a title of "10811.exe" or "Microsoft Word - draft.doc" does not).
 */
export function documentInfo(info: unknown): DocumentMeta {
  const dict = (info && typeof info === "object" ? info : {}) as Record<string, unknown>;
  const text = (key: string) => {
    const v = dict[key];
    return typeof v === "string" ? v.replace(/\s+/g, " ").trim() : "";
  };
  const meta: DocumentMeta = {};
  const title = text("Title");
  if (title.length >= 3 && /\p{L}{3}/u.test(title) && !JUNK_TITLE.test(title)) meta.title = title;
  const author = text("Author");
  if (/\p{L}{2}/u.test(author) && author.includes(" ")) meta.author = author;
  const date = /^D:(\d{4})(\d{2})?(\d{2})?/.exec(text("CreationDate"));
  if (date?.[1]) meta.date = [date[1], date[2], date[3]].filter(Boolean).join("-");
  return meta;
}

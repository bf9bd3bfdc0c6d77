import { normaliseDocumentText } from "../normalise.ts";

/**
 * PDF text artefacts, undone before paragraphs are built so they never reach the index or an answer:
 * typographic minus and hyphen code points (`−−login`), the spacing tilde LaTeX fonts use (`˜/.bashrc`),
 * ligature glyphs (ﬁ ﬂ ﬀ ﬃ), soft hyphens, and words hyphenated across a line break or a pdf.js item break.
 */

// minus sign, hyphen, non-breaking hyphen, figure dash, small and full-width hyphen-minus; en and em dashes
// are real punctuation and stay
const DASHES = /[\u2010\u2011\u2012\u2212\ufe63\uff0d]/g;
// small tilde (˜), tilde operator (∼), full-width tilde
const TILDES = /[\u02dc\u223c\uff5e]/g;
const LIGATURES = /[\ufb00-\ufb06]/g;
// a soft hyphen at a line end only ever marks where a word was broken
const SOFT_HYPHEN_BREAK = /\u00ad[ \t]*\n[ \t]*/g;
// the words that follow a suspended compound: "pre- and post-", "Anfangs- und Endpunkt"
const CONJUNCTIONS = new Set(["and", "or", "nor", "to", "bis", "und", "oder", "et", "ou", "y", "o"]);
const WORD = /[\p{L}\p{N}_]+(?:-[\p{L}\p{N}_]+)*/gu;
const BROKEN_IN_LINE = /((?:[\p{L}\p{N}_]+-)*[\p{L}\p{N}_]+)- (\p{L}[\p{L}\p{N}_]*)/gu;
const BROKEN_AT_END = /((?:[\p{L}\p{N}_]+-)*[\p{L}\p{N}_]+)-$/u;
const FIRST_WORD = /^\p{L}[\p{L}\p{N}_]*/u;

/** One line's worth of PDF text: artefacts undone, invisible characters gone, blanks collapsed. */
export function cleanPdfText(text: string): string {
  return normaliseDocumentText(normalisePdfCharacters(text)).replace(/\s+/g, " ").trim();
}

export function normalisePdfCharacters(text: string): string {
  return text
    .replace(SOFT_HYPHEN_BREAK, "")
    .replace(LIGATURES, (l) => l.normalize("NFKC"))
    .replace(DASHES, "-")
    .replace(TILDES, "~");
}

/** Every word and hyphenated compound the document spells out whole, lower-cased. */
export function documentVocabulary(texts: Iterable<string>): Set<string> {
  const vocab = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(WORD)) vocab.add(m[0].toLowerCase());
  return vocab;
}

/**
 * How to mend "left-" + "right" split at a break: joined ("accurate", "SunSpider"), hyphenated ("FAA-approved",
 * "state-of-the-art"), or left apart ("meta- and"). The document's own spelling elsewhere decides; failing that,
 * a lower-case word broken before a lower-case fragment is typographic hyphenation, anything else a compound.
 */
export function mendHyphenBreak(left: string, right: string, vocab: Set<string>): "join" | "hyphen" | "apart" {
  const next = right.toLowerCase();
  if (CONJUNCTIONS.has(next)) return "apart";
  const prev = left.toLowerCase();
  if (vocab.has(prev + next)) return "join";
  if (vocab.has(`${prev}-${next}`) || prev.includes("-")) return "hyphen";
  return /\p{Ll}$/u.test(left) && /^\p{Ll}/u.test(right) ? "join" : "hyphen";
}

/** "Sun- Spider" inside a line (pdf.js joins text items with a space) mended like a line break. */
export function mendInlineHyphens(text: string, vocab: Set<string>): string {
  return text.replace(BROKEN_IN_LINE, (whole, left: string, right: string) => {
    const how = mendHyphenBreak(left, right, vocab);
    if (how === "join") return left + right;
    return how === "hyphen" ? `${left}-${right}` : whole;
  });
}

/** Joins a wrapped line to the text before it, mending a hyphen that ends the earlier line. */
export function joinWrappedLine(current: string, line: string, vocab: Set<string>): string {
  if (!current) return line;
  const broken = BROKEN_AT_END.exec(current);
  const first = FIRST_WORD.exec(line);
  if (!broken?.[1] || !first) return `${current} ${line}`;
  const how = mendHyphenBreak(broken[1], first[0], vocab);
  if (how === "join") return current.slice(0, -1) + line;
  return how === "hyphen" ? current + line : `${current} ${line}`;
}

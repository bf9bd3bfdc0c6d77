import { normaliseDocumentText } from "../normalise.ts";
import { joinWrappedLine, mendInlineHyphens, normalisePdfCharacters } from "./pdf-text.ts";

/**
 * pdf.js gives lines, not paragraphs. A paragraph ends at a blank line, or at a line clearly shorter
 * than the page's usual line width that either closes a sentence or is followed by a capitalised line
 * (the last line of a justified paragraph, a title, a table row).
 */
export function pageTextToParagraphs(pageText: string, vocab: Set<string> = new Set()): string[] {
  const lines = normaliseDocumentText(normalisePdfCharacters(pageText))
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim());
  const width = percentile(
    lines.filter((l) => l.length > 0).map((l) => l.length),
    0.8,
  );
  const paragraphs: string[] = [];
  let current = "";
  const flush = () => {
    if (current) paragraphs.push(mendInlineHyphens(current, vocab));
    current = "";
  };
  for (const [i, line] of lines.entries()) {
    if (!line) {
      flush();
      continue;
    }
    current = joinWrappedLine(current, line, vocab);
    const next = lines[i + 1] ?? "";
    const short = line.length < width * 0.7;
    if (short && (/[.!?:;"”)]$/.test(line) || /^[\p{Lu}\p{N}•\-–]/u.test(next))) flush();
  }
  flush();
  return paragraphs;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

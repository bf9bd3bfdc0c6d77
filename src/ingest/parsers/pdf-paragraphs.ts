import { normaliseDocumentText } from "../normalise.ts";

/**
 * pdf.js gives lines, not paragraphs. A paragraph ends at a blank line, or at a line clearly shorter
 * than the page's usual line width that either closes a sentence or is followed by a capitalised line
 * (the last line of a justified paragraph, a title, a table row).
 */
export function pageTextToParagraphs(pageText: string): string[] {
  const lines = normaliseDocumentText(pageText)
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim());
  const width = percentile(
    lines.filter((l) => l.length > 0).map((l) => l.length),
    0.8,
  );
  const paragraphs: string[] = [];
  let current = "";
  const flush = () => {
    if (current) paragraphs.push(current);
    current = "";
  };
  for (const [i, line] of lines.entries()) {
    if (!line) {
      flush();
      continue;
    }
    current = joinLine(current, line);
    const next = lines[i + 1] ?? "";
    const short = line.length < width * 0.7;
    if (short && (/[.!?:;"”)]$/.test(line) || /^[\p{Lu}\p{N}•\-–]/u.test(next))) flush();
  }
  flush();
  return paragraphs;
}

/** Joins a wrapped line, undoing a hyphen that only split a word across the break. */
function joinLine(current: string, line: string): string {
  if (!current) return line;
  if (/\p{Ll}-$/u.test(current) && /^\p{Ll}/u.test(line)) return current.slice(0, -1) + line;
  return `${current} ${line}`;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

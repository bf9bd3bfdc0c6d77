import { queryTerms } from "./terms.ts";

/**
 * Builds a safe FTS5 MATCH expression from visitor text: its content words, each a quoted string, joined
 * with OR. Quoting turns every FTS5 operator a visitor might type (AND, NEAR, column:, -, *, ^, parentheses)
 * into a plain word; tokens contain no quotes, and any that slipped in are doubled as FTS5 requires.
 * Returns null when nothing searchable is left (a question of stopwords only).
 */
export function buildMatchQuery(text: string, opts: { maxTerms?: number } = {}): string | null {
  const terms = queryTerms(text, opts.maxTerms ?? 32);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
}

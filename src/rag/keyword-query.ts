import { queryTerms } from "./terms.ts";

/**
 * Builds a safe FTS5 MATCH expression from visitor text: its content words, each a quoted string, joined
 * with OR. Quoting turns every FTS5 operator a visitor might type (AND, NEAR, column:, -, *, ^, parentheses)
 * into a plain word; tokens contain no quotes, and any that slipped in are doubled as FTS5 requires.
 * Returns null when nothing searchable is left (a question of stopwords only).
 */
export function buildMatchQuery(text: string, opts: { maxTerms?: number } = {}): string | null {
  return matchExpression(queryTerms(text, opts.maxTerms ?? 32));
}

/** The OR of quoted terms (see buildMatchQuery); null for no terms. */
export function matchExpression(terms: string[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
}

/** The words of a matchExpression(), unquoted: for keyword indexes that are not FTS5 (the PostgreSQL store). */
export function matchTerms(match: string): string[] {
  return [...match.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => (m[1] as string).replaceAll('""', '"'));
}

/**
 * Chooses the terms FTS5 searches: rarest first, at most `maxTerms`, and no more once the rows they match
 * (summed document frequencies) would pass `maxRows` — FTS5 computes bm25 for every row matching any OR'd
 * term, so common words in a long question cost time and barely move the ranking. At least `minTerms` stay.
 * Measured in BENCHMARKS.md ("Retrieval latency", "Retrieval quality through the product").
 */
export function searchTerms(
  terms: string[],
  df: Map<string, number>,
  opts: { maxTerms: number; maxRows: number; minTerms: number },
): string[] {
  const sorted = [...terms].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0));
  const keep = new Set<string>();
  let rows = 0;
  for (const t of sorted) {
    const d = df.get(t) ?? 0;
    if (keep.size >= opts.maxTerms || (keep.size >= opts.minTerms && rows + d > opts.maxRows)) break;
    keep.add(t);
    rows += d;
  }
  return terms.filter((t) => keep.has(t));
}

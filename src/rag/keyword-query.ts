/**
 * Chooses the terms keyword search looks up: rarest first, at most `maxTerms`, and no more once the rows they match
 * (summed document frequencies) would pass `maxRows` — BM25 is computed for every row matching any OR'd term, so
 * common words in a long question cost time and barely move the ranking. At least `minTerms` stay. Terms the
 * deployment does not hold are left out first: they match nothing. Measured in BENCHMARKS.md ("Retrieval latency",
 * "Retrieval quality through the product"). Each store builds its own query from the terms (FTS5 MATCH of quoted
 * terms on SQLite, SQL over postings on PostgreSQL), so no query syntax a visitor types ever reaches an engine.
 */
export function searchTerms(
  terms: string[],
  df: Map<string, number>,
  opts: { maxTerms: number; maxRows: number; minTerms: number },
): string[] {
  const held = terms.filter((t) => (df.get(t) ?? 0) > 0);
  const sorted = [...held].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0));
  const keep = new Set<string>();
  let rows = 0;
  for (const t of sorted) {
    const d = df.get(t) ?? 0;
    if (keep.size >= opts.maxTerms || (keep.size >= opts.minTerms && rows + d > opts.maxRows)) break;
    keep.add(t);
    rows += d;
  }
  return held.filter((t) => keep.has(t));
}

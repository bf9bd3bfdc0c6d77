/**
 * The FTS5 MATCH expression for analyzed terms: each term a quoted string, joined with OR. Quoting turns every FTS5
 * operator a visitor might have typed (AND, NEAR, column:, -, *, ^, parentheses) into a plain word; a quote inside
 * a term is doubled, as FTS5 requires. Null when there is nothing to search.
 */
export function fts5Match(terms: string[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
}

/**
 * CSV for spreadsheets (RFC 4180, CRLF rows). A cell that a spreadsheet would run as a formula — starting
 * with = + - @, a tab or a CR — gets a leading apostrophe, so a visitor's "=HYPERLINK(...)" stays text.
 */
export function csvCell(value: string | number | null | undefined): string {
  let s = value === null || value === undefined ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s;
}

export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

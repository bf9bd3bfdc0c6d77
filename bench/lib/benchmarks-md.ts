/**
 * Writes one `## ` section of BENCHMARKS.md, replacing the section with the same title and leaving every other
 * section (other benchmarks own them) untouched.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export function upsertSection(file: string, title: string, body: string): void {
  const heading = `## ${title}`;
  const section = `${heading}\n\n${body.trim()}\n`;
  const current = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n";
  const start = current.indexOf(`${heading}\n`);
  if (start === -1) {
    writeFileSync(file, `${current.trimEnd()}\n\n${section}`);
    return;
  }
  const next = current.indexOf("\n## ", start + heading.length);
  const end = next === -1 ? current.length : next + 1;
  writeFileSync(file, `${current.slice(0, start)}${section}${next === -1 ? "" : "\n"}${current.slice(end)}`);
}

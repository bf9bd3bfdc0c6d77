import type Sbd from "sbd";
import { isFieldLine, splitFields } from "../shared/field-line.ts";

/** sbd (and the HTML sanitiser it brings) loads with the first answer, not at start. */
let sbdModule: typeof Sbd | null = null;
const sbd = (): typeof Sbd => {
  sbdModule ??= require("sbd") as typeof Sbd;
  return sbdModule;
};

/**
 * Splits a retrieved passage into the pieces an answer is made of: sentences (sbd: abbreviations, initials,
 * decimals and "e.g." never end one), list items, CSV rows, and headings, which are kept apart so that a
 * heading is never glued to the sentence under it.
 */
export type UnitKind = "sentence" | "item" | "row" | "header" | "heading";

export interface TextUnit {
  text: string;
  kind: UnitKind;
  /** position in the passage, for restoring reading order */
  position: number;
  /** a heading that is a label opening a sentence ("Beweis: …", "Note: …"): it is under the heading before it */
  label?: true;
}

const SBD_OPTIONS = { newline_boundaries: false, preserve_whitespace: false, sanitize: false } as const;
/** "State Name: ALABAMA; Code: 01": one CSV row as the ingest pipeline writes it */
const ROW = /^[^:;\n]{1,80}: [^\n]*$/;
const CSV_HEADER = /^[^|\n]+( \| [^|\n]+)+$/;
const BULLET = /^\s*(?:[-*•▪◦‣·]|\d{1,3}[.)]|[a-z][.)])\s+/u;
/** "SUMMARY :", "Results:" — a label that PDFs and DOCX put on the same line as the text it introduces */
const LEADING_LABEL = /^((?:\p{Lu}[\p{Lu}\d&/-]*\s?){1,4}|\p{Lu}\p{Ll}+(?:\s\p{Ll}+)?)\s?:\s+(?=\p{Lu}|\d)/u;

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** "Satz 5.5 (Satz von Gauß-Bonnet)", "Theorem 2.1 (Pythagoras)", "Definition 3 (Gruppe)": a numbered label with its title */
const NUMBERED_TITLE = /^\p{Lu}\p{L}+\s+\d+(\.\d+)*\s*\([^()]+\)$/u;
/** "Child Information (at time of incident)": a few words of a title and, in brackets, what it is about */
const QUALIFIED_TITLE = /^\p{Lu}[\p{L}'’-]*(?:\s+[\p{L}'’-]+){0,4}\s+\([^()]{1,40}\)$/u;

/** A short line with no sentence punctuation at its end, a label ending in a colon, or a numbered title. */
export function isHeadingLine(line: string): boolean {
  const t = line.trim();
  if (!t || words(t) > 12 || t.length > 90) return false;
  if (isFieldLine(t)) return false;
  // a lone letter is a formula's remnant ("S" under "∫ K(s)dA = 2πχ(S)" in a PDF), not a heading
  if (!/\p{L}[^\p{L}]*\p{L}/u.test(t)) return false;
  if (/[:：]$/.test(t)) return words(t) <= 8;
  if (NUMBERED_TITLE.test(t) || QUALIFIED_TITLE.test(t)) return true;
  if (/[.!?;,"”)]$/.test(t)) return false;
  return /^\p{Lu}|^\d+(\.\d+)*\s+\p{Lu}/u.test(t);
}

/** "Name: value; Name: value" — at least two cells; "HISTIGNORE: A colon-separated list …; …" is a definition. */
export function isCsvRow(line: string): boolean {
  if (!ROW.test(line)) return false;
  const cells = line.split("; ");
  if (cells.length < 2 || !cells.every((c) => /^[^:\n]{1,80}:( |$)/.test(c))) return false;
  // two cells with a long value are prose with a label ("CONTACT: Ian Won, Manager, …; phone: 206-231-3500")
  return cells.length >= 3 || cells.every((c) => c.length - c.indexOf(": ") <= 42);
}

/** sbd ends a sentence inside a path ("~/.bashrc", "./configure"): such dots are hidden from it. */
const PATH_DOT = /(?<=[/~])\.(?=[\p{L}\p{N}_])/gu;
const HIDDEN_DOT = "\u2024";

const open = (s: string) => (s.match(/\(/g)?.length ?? 0) - (s.match(/\)/g)?.length ?? 0);

export function splitSentences(text: string): string[] {
  const parts = sbd()
    .sentences(text.replace(/\s+/g, " ").trim().replace(PATH_DOT, HIDDEN_DOT), SBD_OPTIONS)
    .map((s) => s.trim().replaceAll(HIDDEN_DOT, "."));
  // a sentence does not end inside parentheses: "(2. Auflage)", "(ca. 3 Std.)" are split by sbd's ordinal rules
  const out: string[] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (last !== undefined && open(last) > 0) out[out.length - 1] = `${last} ${p}`;
    else out.push(p);
  }
  return out.filter((s) => /[\p{L}\p{N}]/u.test(s));
}

export function segmentPassage(text: string): TextUnit[] {
  const units: TextUnit[] = [];
  const push = (t: string, kind: UnitKind, label = false) => {
    const clean = t.trim();
    if (/[\p{L}\p{N}]/u.test(clean)) units.push({ text: clean, kind, position: units.length, ...(label ? { label: true as const } : {}) });
  };
  let prose: string[] = [];
  const flushProse = () => {
    for (const s of splitSentences(prose.join(" "))) {
      const label = LEADING_LABEL.exec(s);
      if (label && words(label[1] ?? "") <= 4 && s.length - label[0].length > 20) {
        push(label[1] ?? "", "heading", true);
        push(s.slice(label[0].length), "sentence");
      } else push(s, "sentence");
    }
    prose = [];
  };
  const lines = text.split("\n");
  // a table (DOCX, PDF) arrives as "a | b | c" lines under a header line of the same shape
  let tableHeader: string[] | null = null;
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) {
      flushProse();
      tableHeader = null;
      continue;
    }
    const nextIsRow = isCsvRow(lines[i + 1]?.trim() ?? "");
    let kind: UnitKind | null = null;
    if (isCsvRow(line)) kind = "row";
    else if (CSV_HEADER.test(line)) {
      const cells = line.split(" | ").map((c) => c.trim());
      if (nextIsRow || tableHeader === null) {
        tableHeader = nextIsRow ? null : cells;
        kind = "header";
      } else {
        flushProse();
        const header = tableHeader;
        push(cells.map((c, j) => `${header[j] ?? `column ${j + 1}`}: ${c}`).join("; "), "row");
        continue;
      }
    } else if (BULLET.test(line)) kind = "item";
    else if (isHeadingLine(line) && prose.length === 0) kind = "heading";
    else if (prose.length === 0 && words(line) <= 12 && line.length <= 90 && isFieldLine(line) && !/[.!?]$/.test(line)) kind = "row";
    if (kind === null) {
      prose.push(line);
      continue;
    }
    flushProse();
    // a form's field line ("Age: 1 Year 9 Months Gender: Female Male") reads as a row of its fields
    push(kind === "item" ? line.replace(BULLET, "") : kind === "row" && !isCsvRow(line) ? splitFields(line).join("; ") : line, kind);
  }
  flushProse();
  return units;
}

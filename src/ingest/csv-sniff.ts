export const CSV_DELIMITERS = [",", ";", "\t", "|"] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

export interface DelimiterGuess {
  delimiter: CsvDelimiter;
  /** the most common number of delimiters per record (0 when none was seen) */
  fieldSeparators: number;
  /** share of sampled records that have exactly `fieldSeparators` delimiters */
  consistency: number;
  /** share of sampled records that hold the delimiter at all */
  presence: number;
  records: number;
}

/** Guesses the delimiter from the first records, counting only delimiters outside double quotes. */
export function sniffDelimiter(text: string, maxRecords = 20): DelimiterGuess {
  const records = sampleRecords(text, maxRecords);
  let best: DelimiterGuess = { delimiter: ",", fieldSeparators: 0, consistency: 0, presence: 0, records: records.length };
  for (const delimiter of CSV_DELIMITERS) {
    const counts = records.map((r) => r[delimiter] ?? 0);
    const mode = modalPositive(counts);
    if (mode === 0) continue;
    const consistency = counts.filter((c) => c === mode).length / counts.length;
    const presence = counts.filter((c) => c > 0).length / counts.length;
    const better = consistency > best.consistency || (consistency === best.consistency && mode > best.fieldSeparators);
    if (better) best = { delimiter, fieldSeparators: mode, consistency, presence, records: records.length };
  }
  return best;
}

type Counts = Partial<Record<CsvDelimiter, number>>;

function sampleRecords(text: string, maxRecords: number): Counts[] {
  const records: Counts[] = [];
  let current: Counts = {};
  let length = 0;
  let inQuotes = false;
  const end = () => {
    // blank lines and a leading "#" preamble say nothing about the delimiter
    if (length > 0) records.push(current);
    current = {};
    length = 0;
  };
  for (let i = 0; i < text.length && records.length < maxRecords; i++) {
    const ch = text[i] as string;
    if (ch === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (ch === "\n" || ch === "\r")) {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      end();
      continue;
    } else if (!inQuotes && length === 0 && ch === "#" && records.length === 0) {
      i = skipLine(text, i);
      continue;
    } else if (!inQuotes && isDelimiter(ch)) current[ch] = (current[ch] ?? 0) + 1;
    length++;
  }
  if (records.length < maxRecords) end();
  return records;
}

function skipLine(text: string, from: number): number {
  let i = from;
  while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++;
  return i - 1;
}

function isDelimiter(ch: string): ch is CsvDelimiter {
  return (CSV_DELIMITERS as readonly string[]).includes(ch);
}

function modalPositive(counts: number[]): number {
  const freq = new Map<number, number>();
  for (const c of counts) if (c > 0) freq.set(c, (freq.get(c) ?? 0) + 1);
  let mode = 0;
  let top = 0;
  for (const [count, n] of freq) if (n > top || (n === top && count > mode)) [mode, top] = [count, n];
  return mode;
}

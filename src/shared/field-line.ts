/**
 * "Date of Incident: 01/09/2015", "Agency: Bureau of Milwaukee Child Welfare": a form's field on a line of its own,
 * a label of a few words and its value. It is a record to answer from, not a heading over what follows: the PDF
 * parser keeps such lines out of the heading path and the answer units read them as rows.
 */
const FIELD = /^(?=[^:]*\p{L})[^:;|]{1,40}?:\s+(?=\S)(?!\/\/)/u;
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

export function isFieldLine(line: string): boolean {
  const t = line.trim();
  const m = FIELD.exec(t);
  return !!m && words(m[0]) <= 6 && !/[:：]\s*$/.test(t);
}

/**
 * The fields of a field line, each "Label: value": a later field's label is its last capitalised word, with the
 * words "of", "or", "and" joining it to the ones before ("… 9 Months Gender: Female", "… Date of Incident: …").
 */
const NEXT_LABEL = /(?<!\b(?:of|or|and|for|de|du|der|des|la|le))\s+(?=(?:\p{Lu}[\p{L}'’-]*\s+(?:of|or|and|for|de|du|der|des|la|le)\s+)*\p{Lu}[\p{L}'’-]*:\s)/gu;

export function splitFields(line: string): string[] {
  const t = line.trim();
  const colon = t.indexOf(": ");
  if (colon < 0) return [t];
  // the first label runs from the start of the line: only what follows its colon is split
  const [first = "", ...rest] = t.slice(colon + 2).split(NEXT_LABEL);
  return [`${t.slice(0, colon + 2)}${first}`, ...rest].map((f) => f.trim()).filter((f) => f !== "");
}

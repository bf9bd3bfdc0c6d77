import type { Fragment } from "./pdf-fragments.ts";
import { toLines } from "./pdf-lines.ts";

const NUMBER = /^\d{1,3}$/;
/** Fewer numbered lines than this on a page could be a list, not line numbering. */
const MIN_NUMBERED = 5;

/**
 * A transcript's or a pleading's line numbers (1 to 25 down the left margin) removed from a page: a column of
 * small integers, aligned on their right edge, counting up line by line, with all the page's text to their right.
 */
export function stripLineNumbers(frags: Fragment[]): Fragment[] {
  const firsts = toLines(frags)
    .map((l) => l.frags[0])
    .filter((f): f is Fragment => f !== undefined && NUMBER.test(f.text));
  if (firsts.length < MIN_NUMBERED) return frags;
  // the right edge most of them share
  const edge = firsts
    .map((f) => f.right)
    .sort((a, b) => a - b)
    .find((r, _, all) => all.filter((o) => Math.abs(o - r) <= 2).length >= MIN_NUMBERED);
  if (edge === undefined) return frags;
  const column = firsts.filter((f) => Math.abs(f.right - edge) <= 2);
  let steps = 0;
  for (let i = 1; i < column.length; i++) if (Number(column[i]?.text) === Number(column[i - 1]?.text) + 1) steps++;
  if (steps < 0.7 * (column.length - 1)) return frags;
  const inColumn = new Set(column);
  const rest = frags.filter((f) => !inColumn.has(f));
  const margin = Math.max(...column.map((f) => f.right));
  if (rest.some((f) => f.x < margin)) return frags;
  return rest;
}

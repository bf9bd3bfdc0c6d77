/** The token estimate every chunk budget uses, and cutting text to a budget. */
// CJK, kana and hangul run close to one token per character; other scripts about four characters a token.
const WIDE = /[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/g;

export function countWide(text: string): number {
  return text.match(WIDE)?.length ?? 0;
}

/** Cheap, deterministic token estimate: wide characters count one each, the rest ceil(chars / 4). */
export function estimateTokens(text: string): number {
  const wide = countWide(text);
  return wide + Math.ceil((text.length - wide) / 4);
}

const WIDE_CHAR = new RegExp(WIDE.source);
const isWide = (ch: string) => WIDE_CHAR.test(ch);

/** The same estimate kept incrementally, so growing a piece costs O(1) per step instead of a re-count. */
class TokenTally {
  wide = 0;
  narrow = 0;
  get tokens(): number {
    return this.wide + Math.ceil(this.narrow / 4);
  }
  with(wide: number, narrow: number): number {
    return this.wide + wide + Math.ceil((this.narrow + narrow) / 4);
  }
  add(wide: number, narrow: number): void {
    this.wide += wide;
    this.narrow += narrow;
  }
}

/** Splits on whitespace into pieces of at most `pieceTokens` when the text exceeds `budget`. Linear in the text. */
export function splitText(text: string, budget: number, pieceTokens: number): string[] {
  if (estimateTokens(text) <= budget) return [text];
  const limit = Math.max(1, Math.min(budget, pieceTokens));
  const pieces: string[] = [];
  let words: string[] = [];
  const tally = new TokenTally();
  for (const raw of text.split(/\s+/)) {
    for (const word of hardSplit(raw, limit)) {
      const wide = countWide(word);
      const narrow = word.length - wide + (words.length > 0 ? 1 : 0);
      if (words.length > 0 && tally.with(wide, narrow) > limit) {
        pieces.push(words.join(" "));
        words = [];
        tally.wide = tally.narrow = 0;
        tally.add(wide, word.length - wide);
      } else tally.add(wide, narrow);
      words.push(word);
    }
  }
  if (words.length > 0) pieces.push(words.join(" "));
  return pieces.filter(Boolean);
}

/** A single "word" longer than the budget (CJK runs, base64, URLs) is cut by characters, in one pass. */
function hardSplit(word: string, limit: number): string[] {
  if (estimateTokens(word) <= limit) return [word];
  const pieces: string[] = [];
  const tally = new TokenTally();
  let start = 0;
  let at = 0;
  for (const ch of word) {
    const wide = isWide(ch) ? 1 : 0;
    const narrow = ch.length - wide;
    if (at > start && tally.with(wide, narrow) > limit) {
      pieces.push(word.slice(start, at));
      start = at;
      tally.wide = tally.narrow = 0;
    }
    tally.add(wide, narrow);
    at += ch.length;
  }
  if (at > start) pieces.push(word.slice(start, at));
  return pieces;
}

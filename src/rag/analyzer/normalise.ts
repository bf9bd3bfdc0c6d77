/**
 * Text → word tokens, before any language rule: lower-cased (Turkish dotted/dotless i when the text is Turkish),
 * split into runs of letters, marks, digits and underscores, and the runs of scripts written without spaces
 * (Chinese, Japanese, Korean, Thai, Lao, Khmer, Myanmar) cut into words by Intl.Segmenter (ICU's dictionaries,
 * built into Bun and into the compiled binary). Folding diacritics happens after stemming (foldTerm): the
 * Snowball stemmers read "ä", "é", "ş" as letters of their alphabets.
 */

/** A run of a script that needs a word segmenter, or a run of word characters of any other script. */
const RUN =
  /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}ー々〆]+)|([\p{L}\p{M}\p{N}_]+)/gu;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}ー]/u;
const HANGUL = /\p{Script=Hangul}/u;
const THAI = /\p{Script=Thai}/u;

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: "word" });
    segmenters.set(locale, s);
  }
  return s;
}

/** Which segmenter a run needs: its script decides, not the document's language (a Japanese name in a German text). */
function localeOf(run: string): string {
  if (KANA.test(run)) return "ja";
  if (HANGUL.test(run)) return "ko";
  if (THAI.test(run)) return "th";
  return "zh";
}

export function lowerCase(text: string, turkish = false): string {
  return turkish ? text.toLocaleLowerCase("tr") : text.toLowerCase();
}

const NON_ASCII = /[^\x00-\x7f]/;
const SEGMENTED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}ー々〆]/u;
const WORD_BREAK = /[^\p{L}\p{M}\p{N}_]+/u;

/**
 * Symbols a manual defines or a question asks about, which hold no letter: a shell's special parameters ("$!",
 * "$?", "$$" — the same as the "!", "?", "$" entries that define them, so one "$" in front is dropped), an
 * operator of two or three characters ("&&", "||", ">>"), a one-symbol definition entry at the start of a line
 * ("!: Expands to …") and a one-letter option ("-e", "+o"; case kept: "-E" is another option). Each becomes a
 * term of its own ("§21" for "!": no word token holds "§"), so "What does $! expand to?" finds the "!" entry.
 * A lone "?" or "!" is punctuation (French puts a space before them), never a symbol.
 */
const SYMBOL =
  /(?<=^|[\s(`'"‘“[])(?:\$([!?#@*$-])|(&&|\|\||>>|<<|;;|!=|==|<=|>=|=~|\+=|\|&|&>|<<<)|(?<=^|\n)([!?#@*$-]):|([-+]\p{L}))(?=[\s)\]`'"’”,.;:?|]|$)/u;
const SYMBOLS = new RegExp(SYMBOL.source, "gu");
const SYMBOL_HINT = /\$[!?#@*$-]|&&|\|\||>>|<<|;;|[!=<>+]=|=~|\|&|&>|(?:^|\n)[!?#@*$-]:|(?:^|[\s([])[-+]\p{L}(?![\p{L}\p{N}])/u;

/** A symbol's term: "§" and its characters' code points in hex ("&&" → "§2626"). */
export const symbolTerm = (symbol: string): string => `§${[...symbol].map((c) => (c.codePointAt(0) ?? 0).toString(16)).join("")}`;
/** A term symbolTerm made: the analyzer neither stems nor drops it. */
export const isSymbolTerm = (term: string): boolean => term.startsWith("§");

/**
 * An abbreviation in capitals with a plural "s" in lower case ("mRNAs", "TKIs", "VSMCs", "URLs", "CD4s"): at least
 * two capitals, at most one lower-case letter in front. No stemmer takes the "s" off ("mrnas" keeps it in Snowball's
 * English, as "gas" does), so the plural would never meet the singular the documents also write.
 */
const ABBREVIATION_PLURAL = /(?<![\p{L}\p{N}_])(\p{Ll}?\p{Lu}[\p{Lu}\p{N}]*\p{Lu}\p{N}*)s(?![\p{L}\p{N}_])/gu;
const ABBREVIATION_PLURAL_HINT = /\p{Lu}\p{N}*s(?![\p{L}\p{N}_])/u;
const singularAbbreviations = (text: string) => (ABBREVIATION_PLURAL_HINT.test(text) ? text.replace(ABBREVIATION_PLURAL, "$1") : text);

/** Word tokens of `text`, lower-cased, diacritics kept, in order; with `symbols`, symbols as their terms too (see SYMBOL). */
export function tokenize(text: string, opts: { turkish?: boolean; symbols?: boolean } = {}): string[] {
  const out: string[] = [];
  const nonAscii = NON_ASCII.test(text);
  const nfc = singularAbbreviations(nonAscii ? text.normalize("NFC") : text);
  if (opts.symbols !== false && SYMBOL_HINT.test(nfc) && (!nonAscii || !SEGMENTED.test(nfc))) return withSymbols(nfc, opts.turkish);
  const lower = lowerCase(nfc, opts.turkish);
  // most text needs no segmenter: a plain split is several times faster than matching runs
  if (!nonAscii || !SEGMENTED.test(lower)) return splitLower(lower, nonAscii);
  for (const m of lower.matchAll(RUN)) {
    if (m[1]) {
      for (const s of segmenter(localeOf(m[1])).segment(m[1])) if (s.isWordLike) out.push(s.segment);
    } else if (m[2]) {
      // a run that starts with a combining mark is debris of a split; marks alone are no word
      const w = m[2].replace(/^\p{M}+/u, "");
      if (w !== "") out.push(w);
    }
  }
  return out;
}

function splitLower(lower: string, nonAscii: boolean): string[] {
  const out: string[] = [];
  for (const w of lower.split(WORD_BREAK)) {
    const t = nonAscii ? w.replace(/^\p{M}+/u, "") : w;
    if (t !== "") out.push(t);
  }
  return out;
}

/**
 * tokenize(text, { turkish }) when it is a plain split (no symbol, no script that needs a segmenter), else null. Such
 * a text's words are also tokenize(text, { symbols: false })'s, and the words of such texts joined by "\n" are each
 * text's words one after another (neither lower-casing, NFC nor the abbreviations' "s" reach across a line break).
 */
export function plainWords(text: string, turkish = false): string[] | null {
  const nonAscii = NON_ASCII.test(text);
  const nfc = singularAbbreviations(nonAscii ? text.normalize("NFC") : text);
  if (SYMBOL_HINT.test(nfc)) return null;
  const lower = lowerCase(nfc, turkish);
  return nonAscii && SEGMENTED.test(lower) ? null : splitLower(lower, nonAscii);
}

/**
 * tokenize() of a text (NFC, case as written) that holds symbols: the symbols found where they stand, the words
 * between them lower-cased and split as tokenize() does.
 */
function withSymbols(text: string, turkish = false): string[] {
  const out: string[] = [];
  let at = 0;
  for (const m of text.matchAll(SYMBOLS)) {
    splitWords(text.slice(at, m.index), turkish, out);
    out.push(symbolTerm((m[1] ?? m[2] ?? m[3] ?? m[4]) as string));
    at = m.index + m[0].length;
  }
  splitWords(text.slice(at), turkish, out);
  return out;
}

function splitWords(text: string, turkish: boolean, out: string[]): void {
  for (const w of lowerCase(text, turkish).split(WORD_BREAK)) {
    const t = w.replace(/^\p{M}+/u, "");
    if (t !== "") out.push(t);
  }
}

/** combining marks after a Latin letter (after NFD): what FTS5's remove_diacritics 2 removed, and what we still remove */
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;

/**
 * The form a term is indexed and searched under: diacritics of Latin letters removed (é → e, ş → s, İ → i), ё → е,
 * ß → ss, µ → μ. Applied after stemming, to both sides, so "Müller" and "Muller" meet.
 */
export function foldTerm(term: string): string {
  let t = term;
  if (/[^\x00-\x7f]/.test(t)) {
    t = t.normalize("NFD").replace(LATIN_MARKS, "$1").normalize("NFC").replaceAll("ё", "е").replaceAll("ß", "ss").replaceAll("µ", "μ");
  }
  return t;
}

import { LANGUAGE_CODES, type Lang } from "./languages.ts";
import { tokenize } from "./normalise.ts";
import { stopwords } from "./stopwords.ts";

/**
 * Which language a text is in, from what the analyzer ships anyway: the script decides Chinese, Japanese (kana),
 * Korean, Thai and Russian (Cyrillic); among the Latin-script languages, function words decide — each word of a
 * language's stop list counts, shared words ("de", "in", "a") count for each language sharing them a fraction —
 * helped by letters only some of them use (ß, ñ, ı, å, ø, ã) and typical endings (-ção, -zione, -ung, -ssa).
 * Measured against franc, tinyld, eld and cld3-asm on man pages in 16 languages (docs/languages.md). `reliable` is
 * false when the text holds too little evidence (a name, a number, two words).
 */
export interface Detection {
  lang: Lang;
  reliable: boolean;
  /** evidence for the winner over the runner-up, 0..1 */
  confidence: number;
}

const LATIN: Lang[] = ["en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "no", "fi", "tr"];

/** letters that only some Latin-script languages write, with those languages */
const LETTERS: [RegExp, Lang[]][] = [
  [/ß/, ["de"]],
  [/ñ/, ["es"]],
  [/[ãõ]/, ["pt"]],
  [/[ığş]/, ["tr"]],
  [/å/, ["sv", "da", "no"]],
  [/[øæ]/, ["da", "no"]],
  [/ç/, ["fr", "pt", "tr"]],
  [/ä/, ["de", "sv", "fi"]],
  [/ö/, ["de", "sv", "fi", "tr"]],
  [/ü/, ["de", "tr"]],
  [/[èù]/, ["fr", "it"]],
  [/[êôâ]/, ["fr", "pt"]],
  [/[ëï]/, ["fr", "nl"]],
  [/[áíóú]/, ["es", "pt", "it"]],
  [/é/, ["fr", "es", "pt", "it"]],
  [/œ/, ["fr"]],
];

/** endings typical of a language (weaker evidence than a letter of its own) */
const ENDINGS: [string[], Lang[]][] = [
  [["ssa", "ssä", "sta", "stä", "llä", "ltä", "lle", "ksi", "ään", "iin", "ista", "istä", "isen", "inen", "vat", "vät"], ["fi"]],
  [["ción", "ciones", "dad", "dades"], ["es"]],
  [["ção", "ções", "ão", "ões", "ãe"], ["pt"]],
  [["zione", "zioni", "tà", "ità"], ["it"]],
  [["eau", "eaux", "aux", "ait", "aient", "ement"], ["fr"]],
  [["ung", "ungen", "keit", "heit", "lich", "isch", "chen"], ["de"]],
  [["heid", "lijk", "tje", "tjes"], ["nl"]],
  [["hed", "ede"], ["da"]],
  [["het", "ene"], ["no"]],
  [["ning", "ningar", "ningen", "het", "lig", "liga"], ["sv"]],
  [["lar", "ler", "dır", "dir", "dur", "dür", "ası", "esi", "ması", "mesi", "leri", "ları"], ["tr"]],
  [["ing", "ed", "ly", "tion", "ness", "ment"], ["en"]],
];
/** letter groups typical of a language, anywhere in a word */
const INFIXES: [string[], Lang[]][] = [
  [
    ["aa", "ää", "yy", "ii", "uu", "öö"],
    ["fi", "nl"],
  ],
  [["nh", "lh"], ["pt"]],
  [["gli", "cch", "zz"], ["it"]],
  [["sch", "tz"], ["de"]],
  [["ij"], ["nl"]],
];
/** function words that tell close languages apart (Danish from Norwegian, Swedish from both) */
const MARKERS: [string[], Lang[]][] = [
  [["af", "hvad", "mig", "dig", "sig", "nu", "efter", "op", "ud", "bliver", "nogle", "noget"], ["da"]],
  [["av", "hva", "meg", "deg", "seg", "nå", "etter", "opp", "ut", "blir", "noen", "noe", "ikkje", "eg"], ["no"]],
  [["och", "inte", "är", "av", "för", "på", "som"], ["sv"]],
];

interface Tables {
  /** word → evidence per language: its stop lists (a word three lists share is a third of the evidence) and markers */
  words: Map<string, [Lang, number][]>;
  /** ending → languages */
  endings: Map<string, Lang[]>;
}
let built: Tables | null = null;
function tables(): Tables {
  if (built) return built;
  const words = new Map<string, [Lang, number][]>();
  const add = (word: string, l: Lang, n: number) => words.set(word, [...(words.get(word) ?? []), [l, n]]);
  const sharing = new Map<string, number>();
  for (const l of LATIN) for (const w of stopwords(l)) sharing.set(w, (sharing.get(w) ?? 0) + 1);
  for (const l of LATIN) for (const w of stopwords(l)) add(w, l, 1 / (sharing.get(w) ?? 1));
  for (const [list, langs] of MARKERS) for (const w of list) for (const l of langs) add(w, l, 0.3 / langs.length);
  const endings = new Map<string, Lang[]>();
  for (const [list, langs] of ENDINGS) for (const e of list) endings.set(e, [...(endings.get(e) ?? []), ...langs]);
  built = { words, endings };
  return built;
}

const NON_ASCII = /[^\x00-\x7f]/;
const LATIN_WORD = /\p{Script=Latin}/u;

/** One Latin-script word's evidence for each language it may belong to (memoized: words repeat). */
const evidence = new Map<string, [Lang, number][]>();
const EVIDENCE_CACHE = 100_000;
function wordEvidence(w: string, t: Tables): [Lang, number][] {
  const hit = evidence.get(w);
  if (hit) return hit;
  const out: [Lang, number][] = [...(t.words.get(w) ?? [])];
  if (NON_ASCII.test(w)) for (const [re, langs] of LETTERS) if (re.test(w)) for (const l of langs) out.push([l, 0.5 / langs.length]);
  const typical = new Set<Lang>();
  for (let k = 2; k <= 6 && k < w.length; k++) for (const l of t.endings.get(w.slice(-k)) ?? []) typical.add(l);
  for (const [list, langs] of INFIXES) if (list.some((x) => w.includes(x))) for (const l of langs) typical.add(l);
  if (w.startsWith("th") || w.startsWith("wh")) typical.add("en");
  for (const l of typical) out.push([l, 0.3]);
  if (evidence.size >= EVIDENCE_CACHE) evidence.clear();
  evidence.set(w, out);
  return out;
}

/**
 * A long text stops being read once one language leads by this much evidence, this clearly: a document's
 * language shows in its first few hundred words, and reading 3,000 cost most of a short document's training time.
 */
const DECIDED = { evidence: 60, confidence: 0.6, every: 100 };

const SCRIPT = {
  kana: /[\p{Script=Hiragana}\p{Script=Katakana}]/gu,
  han: /\p{Script=Han}/gu,
  hangul: /\p{Script=Hangul}/gu,
  thai: /\p{Script=Thai}/gu,
  cyrillic: /\p{Script=Cyrillic}/gu,
  latin: /\p{Script=Latin}/u,
};
const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;
/** any letter of the scripts above: without one (most Latin-script text), their five counts are all 0 */
const SCRIPTS = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}\p{Script=Hangul}\p{Script=Thai}\p{Script=Cyrillic}]/u;

/** Only this much of a long text is read: a document's language shows in its first pages. */
const SAMPLE_CHARS = 20_000;
const MAX_WORDS = 3000;

function decided(scores: Map<Lang, number>): boolean {
  let best = 0;
  let second = 0;
  for (const v of scores.values())
    if (v > best) {
      second = best;
      best = v;
    } else if (v > second) second = v;
  return best >= DECIDED.evidence && (best - second) / best >= DECIDED.confidence;
}

export function detectLanguage(
  text: string,
  opts: { candidates?: readonly Lang[]; fallback?: Lang /** words read at most */; maxWords?: number } = {},
  /** the text's words, tokenize(text, { symbols: false }), when in hand (used when the text is no longer than SAMPLE_CHARS) */
  words?: () => Iterable<string>,
): Detection {
  const candidates = opts.candidates && opts.candidates.length > 0 ? opts.candidates : LANGUAGE_CODES;
  const fallback = opts.fallback ?? (candidates.includes("en") ? "en" : (candidates[0] as Lang));
  if (candidates.length === 1) return { lang: candidates[0] as Lang, reliable: true, confidence: 1 };
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  const read = words && sample === text ? words : () => tokenize(sample, { symbols: false });
  return detectSample(sample, read, candidates, fallback, opts.maxWords);
}

function detectSample(
  sample: string,
  words: () => Iterable<string>,
  candidates: readonly Lang[],
  fallback: Lang,
  maxWords = MAX_WORDS,
): Detection {
  const scores = new Map<Lang, number>();
  const allowed = new Set(candidates);
  const add = (l: Lang, n: number) => {
    if (n > 0 && allowed.has(l)) scores.set(l, (scores.get(l) ?? 0) + n);
  };
  if (SCRIPTS.test(sample)) {
    const kana = count(sample, SCRIPT.kana);
    const han = count(sample, SCRIPT.han);
    // scripts: one letter is weak evidence, a run of them is a language (scaled like stop words, ~1 per word)
    add("ja", kana > 0 ? (kana + han) / 2 : 0);
    add("zh", kana === 0 ? han / 2 : han / 20);
    add("ko", count(sample, SCRIPT.hangul) / 2);
    add("th", count(sample, SCRIPT.thai) / 3);
    add("ru", count(sample, SCRIPT.cyrillic) / 6);
  }
  if (SCRIPT.latin.test(sample)) {
    const t = tables();
    let seen = 0;
    for (const w of words()) {
      if (!LATIN_WORD.test(w)) continue;
      if (++seen > maxWords) break;
      for (const [l, n] of wordEvidence(w, t)) add(l, n);
      if (seen % DECIDED.every === 0 && decided(scores)) break;
    }
  }
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  const [best, second] = ranked;
  if (!best) return { lang: fallback, reliable: false, confidence: 0 };
  const runnerUp = second?.[1] ?? 0;
  const confidence = (best[1] - runnerUp) / best[1];
  return { lang: best[0], reliable: best[1] >= 1.5 && confidence >= 0.2, confidence };
}

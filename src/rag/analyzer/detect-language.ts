import { LANGUAGE_CODES, type Lang } from "./languages.ts";
import { tokenize } from "./normalise.ts";
import { stopwords } from "./stopwords.ts";

/**
 * Which language a text is in, from what the analyzer ships anyway: the script decides Chinese, Japanese (kana),
 * Korean, Thai and Russian (Cyrillic); among the Latin-script languages, function words decide — each word of a
 * language's stop list counts, shared words ("de", "in", "a") count for each language sharing them a fraction —
 * helped by letters only some of them use (ß, ñ, ı, å, ø, ã). Measured against franc-min, tinyld, eld and
 * cld3-asm on man pages in 17 languages (docs/languages.md): as accurate on questions and paragraphs, at no
 * size cost. `reliable` is false when the text holds too little evidence (a name, a number, two words).
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

/** spellings and endings typical of a language (weaker than a letter of its own) */
const SPELLINGS: [RegExp, Lang[]][] = [
  [/(ssa|ssä|sta|stä|llä|ltä|lle|ksi|ään|iin|ista|istä|isen|inen|vat|vät)$/, ["fi"]],
  [/(aa|ää|yy|ii|uu|öö)/, ["fi", "nl"]],
  [/y.*[äö]|[äö].*y/, ["fi"]],
  [/(ción|ciones|dad|dades)$/, ["es"]],
  [/(ção|ções|ão|ões|ãe)$|nh|lh/, ["pt"]],
  [/(zione|zioni|tà|ità)$|gli|cch|zz/, ["it"]],
  [/(eau|eaux|aux|ait|aient|ement)$|^(qu|l|d|j|n|s|c)'/, ["fr"]],
  [/(ung|ungen|keit|heit|lich|isch|chen)$|sch|tz/, ["de"]],
  [/ij|(heid|lijk|tje|tjes)$/, ["nl"]],
  [/(hed|ede)$|^(af|hvad|mig|dig|sig|nu|efter|op|ud|bliver|nogle|noget)$/, ["da"]],
  [/(het|ene)$|^(av|hva|meg|deg|seg|nå|etter|opp|ut|blir|noen|noe|ikkje|eg)$/, ["no"]],
  [/(ning|ningar|ningen|het|lig|liga)$|^(och|inte|är|av|för|på|som)$/, ["sv"]],
  [/(lar|ler|dır|dir|dur|dür|ası|esi|ması|mesi|leri|ları)$/, ["tr"]],
  [/(ing|ed|ly|tion|ness|ment)$|^(th|wh)/, ["en"]],
];

/** How many Latin languages list each stop word (a word of three lists is a third of the evidence). */
let sharing: Map<string, number> | null = null;
function shared(word: string): number {
  if (!sharing) {
    sharing = new Map();
    for (const l of LATIN) for (const w of stopwords(l)) sharing.set(w, (sharing.get(w) ?? 0) + 1);
  }
  return sharing.get(word) ?? 1;
}

const SCRIPT = {
  kana: /[\p{Script=Hiragana}\p{Script=Katakana}]/gu,
  han: /\p{Script=Han}/gu,
  hangul: /\p{Script=Hangul}/gu,
  thai: /\p{Script=Thai}/gu,
  cyrillic: /\p{Script=Cyrillic}/gu,
  latin: /\p{Script=Latin}/gu,
};
const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;

/** Only this much of a long text is read: a document's language shows in its first pages. */
const SAMPLE_CHARS = 20_000;

export function detectLanguage(text: string, opts: { candidates?: readonly Lang[]; fallback?: Lang } = {}): Detection {
  const candidates = opts.candidates && opts.candidates.length > 0 ? opts.candidates : LANGUAGE_CODES;
  const fallback = opts.fallback ?? (candidates.includes("en") ? "en" : (candidates[0] as Lang));
  if (candidates.length === 1) return { lang: candidates[0] as Lang, reliable: true, confidence: 1 };
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  const scores = new Map<Lang, number>();
  const add = (l: Lang, n: number) => {
    if (candidates.includes(l) && n > 0) scores.set(l, (scores.get(l) ?? 0) + n);
  };
  const kana = count(sample, SCRIPT.kana);
  const han = count(sample, SCRIPT.han);
  // scripts: one letter is weak evidence, a run of them is a language (scaled like stop words, ~1 per word)
  add("ja", kana > 0 ? (kana + han) / 2 : 0);
  add("zh", kana === 0 ? han / 2 : han / 20);
  add("ko", count(sample, SCRIPT.hangul) / 2);
  add("th", count(sample, SCRIPT.thai) / 3);
  add("ru", count(sample, SCRIPT.cyrillic) / 6);
  if (count(sample, SCRIPT.latin) > 0) {
    for (const w of tokenize(sample)) {
      if (!/\p{Script=Latin}/u.test(w)) continue;
      for (const l of LATIN) if (stopwords(l).has(w)) add(l, 1 / shared(w));
      for (const [re, langs] of LETTERS) if (re.test(w)) for (const l of langs) add(l, 0.5 / langs.length);
      for (const [re, langs] of SPELLINGS) if (re.test(w)) for (const l of langs) add(l, 0.3 / langs.length);
    }
  }
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  const [best, second] = ranked;
  if (!best) return { lang: fallback, reliable: false, confidence: 0 };
  const runnerUp = second?.[1] ?? 0;
  const confidence = (best[1] - runnerUp) / best[1];
  return { lang: best[0], reliable: best[1] >= 1.5 && confidence >= 0.2, confidence };
}

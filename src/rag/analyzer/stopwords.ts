import type { Lang } from "./languages.ts";
import { foldTerm } from "./normalise.ts";
import da from "./stopwords/da.txt" with { type: "text" };
import de from "./stopwords/de.txt" with { type: "text" };
import en from "./stopwords/en.txt" with { type: "text" };
import es from "./stopwords/es.txt" with { type: "text" };
import fi from "./stopwords/fi.txt" with { type: "text" };
import fr from "./stopwords/fr.txt" with { type: "text" };
import it from "./stopwords/it.txt" with { type: "text" };
import ja from "./stopwords/ja.txt" with { type: "text" };
import ko from "./stopwords/ko.txt" with { type: "text" };
import nl from "./stopwords/nl.txt" with { type: "text" };
import no from "./stopwords/no.txt" with { type: "text" };
import pt from "./stopwords/pt.txt" with { type: "text" };
import ru from "./stopwords/ru.txt" with { type: "text" };
import sv from "./stopwords/sv.txt" with { type: "text" };
import th from "./stopwords/th.txt" with { type: "text" };
import tr from "./stopwords/tr.txt" with { type: "text" };
import zh from "./stopwords/zh.txt" with { type: "text" };

/**
 * Function words per language, dropped from the index and from questions. The Snowball project's lists for
 * de, fr, it, pt, nl, sv, da, no, fi and ru (as @orama/stopwords ships them), NLTK's for English, and lists
 * written for docchat for es, tr, zh, ja, ko and th (function words only: the stopwords-iso lists measured in
 * docs/languages.md hold content words such as "jahr", "gut", 年, 人). Each list is extended with the language's
 * question words, which name the kind of answer, not what it is about. Words are kept in their written form and
 * folded (so "fur" is dropped like "für").
 */
const RAW: Record<Lang, string> = { da, de, en, es, fi, fr, it, ja, ko, nl, no, pt, ru, sv, th, tr, zh };

const cache = new Map<Lang, ReadonlySet<string>>();

export function stopwords(lang: Lang): ReadonlySet<string> {
  let set = cache.get(lang);
  if (!set) {
    const words = RAW[lang].split(/\s+/).filter((w) => w !== "");
    set = new Set([...words.map((w) => w.toLowerCase()), ...words.map((w) => foldTerm(w.toLowerCase()))]);
    cache.set(lang, set);
  }
  return set;
}

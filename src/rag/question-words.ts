import type { AskedKind } from "./answer-type.ts";
import type { FocusKind } from "./focus-kinds.ts";
import { detectLanguage, type Lang, stem } from "./terms.ts";

/**
 * What a question in another language asks for, from its interrogative: "Wann …?" a date, "Combien coûte …?" a
 * price, "¿Dónde …?" a place. question-shape.ts reads English questions word by word; this gives questions in
 * German, French, Spanish, Italian, Portuguese and Dutch the same answer kinds, so the gate and the composer look
 * for a sentence holding a date, a number, an amount of money or a name there too. The question's language is
 * detected; the focus words are stemmed in it, as the gate's weights are.
 */
export interface ForeignQuestion {
  lang: Lang;
  kind: AskedKind | null;
  focusKind?: FocusKind;
  /** stems (in `lang`) of the words that name the focus, any one of which the answer may use */
  focus: string[][];
}

interface Rules {
  /** the interrogatives, tried in order at the start of the question (after a leading preposition) */
  kinds: [RegExp, AskedKind, FocusKind?][];
  /** a question about a price, and the words a document may use for one */
  money: RegExp;
  moneyWords: string;
}

const at = (words: string) => new RegExp(String.raw`^[\s¿¡«"„“(]*(?:${words})(?=[\s?,.!»"“”]|$)`, "iu");

const RULES: Partial<Record<Lang, Rules>> = {
  de: {
    kinds: [
      [at("seit wann|bis wann|wann|in welchem jahr|an welchem tag|um wie viel uhr"), "time"],
      [at("wie alt"), "number", "age"],
      [at("wie lange"), "number", "extent"],
      [at("wie viele|wie viel|wieviele|wieviel|wie oft|wie hoch|wie groß|wie weit"), "number"],
      [at("wer|wem|wen|wessen|auf wessen|von wem|mit wem|für wen|an wen"), "name"],
      [at("wo|wohin|woher"), "place"],
      [at("warum|weshalb|wieso|weswegen|aus welchem grund"), "reason"],
    ],
    money: /\b(kostet|kosten|preis|preise|gebühr|gebühren|teuer)\b/iu,
    moneyWords: "kosten kostet preis gebühr euro eur",
  },
  fr: {
    kinds: [
      [at("quand|depuis quand|jusqu'à quand|en quelle année|à quelle date|à quelle heure|quel jour"), "time"],
      [at("quel âge"), "number", "age"],
      [at("combien de temps"), "number", "extent"],
      [at("combien"), "number"],
      [at("qui|à qui|de qui|par qui|avec qui|pour qui"), "name"],
      [at("où|d'où|d’où"), "place"],
      [at("pourquoi"), "reason"],
    ],
    money: /\b(coûte|coûtent|coute|coutent|coût|prix|tarif|tarifs|frais)\b/iu,
    moneyWords: "coûte coût prix tarif frais euro euros eur",
  },
  es: {
    kinds: [
      [at("cuándo|desde cuándo|hasta cuándo|en qué año|en qué fecha|a qué hora|qué día"), "time"],
      [at("cuántos años"), "number", "age"],
      [at("cuánto tiempo"), "number", "extent"],
      [at("cuántos|cuántas|cuánto|cuánta|cuantos|cuantas|cuanto|cuanta"), "number"],
      [at("quién|quiénes|a quién|de quién|por quién|con quién|para quién"), "name"],
      [at("dónde|adónde|de dónde|en dónde"), "place"],
      [at("por qué|porqué"), "reason"],
    ],
    money: /\b(cuesta|cuestan|costo|coste|precio|precios|tarifa|vale|valen)\b/iu,
    moneyWords: "cuesta costo coste precio tarifa euro euros eur",
  },
  it: {
    kinds: [
      [at("quando|da quando|fino a quando|in che anno|in quale anno|a che ora"), "time"],
      [at("quanti anni"), "number", "age"],
      [at("quanto tempo"), "number", "extent"],
      [at("quanti|quante|quanto|quanta"), "number"],
      [at("chi|a chi|di chi|da chi|con chi|per chi"), "name"],
      [at("dove|da dove"), "place"],
      [at("perché|perchè|come mai"), "reason"],
    ],
    money: /\b(costa|costano|costo|prezzo|prezzi|tariffa)\b/iu,
    moneyWords: "costa costo prezzo tariffa euro eur",
  },
  pt: {
    kinds: [
      [at("quando|desde quando|até quando|em que ano|a que horas"), "time"],
      [at("quantos anos"), "number", "age"],
      [at("quanto tempo"), "number", "extent"],
      [at("quantos|quantas|quanto|quanta"), "number"],
      [at("quem|a quem|de quem|por quem|com quem|para quem"), "name"],
      [at("onde|aonde|de onde"), "place"],
      [at("por que|por quê|porque"), "reason"],
    ],
    money: /\b(custa|custam|custo|preço|preços|tarifa)\b/iu,
    moneyWords: "custa custo preço tarifa euro euros eur real reais",
  },
  nl: {
    kinds: [
      [at("wanneer|sinds wanneer|tot wanneer|in welk jaar|hoe laat"), "time"],
      [at("hoe oud"), "number", "age"],
      [at("hoe lang"), "number", "extent"],
      [at("hoeveel|hoe vaak"), "number"],
      [at("wie|aan wie|van wie|door wie|met wie|voor wie"), "name"],
      [at("waar|waarheen|waarvandaan"), "place"],
      [at("waarom"), "reason"],
    ],
    money: /\b(kost|kosten|prijs|prijzen|tarief)\b/iu,
    moneyWords: "kost kosten prijs tarief euro eur",
  },
};

/** A preposition before the interrogative: "Auf wessen …", "À quelle heure …", "En qué año …" are tried whole first. */
const LEAD = /^[\s¿¡«"„“(]*(?:auf|in|an|von|mit|für|seit|bis|à|de|en|por|para|a|da|di|in|op|aan|van)\s+/iu;

/**
 * The answer kind a question in one of those languages asks for, or null when it is in English (or another
 * language) or opens with no interrogative listed here.
 */
export function foreignQuestion(question: string): ForeignQuestion | null {
  const { lang } = detectLanguage(question);
  const rules = RULES[lang];
  if (!rules) return null;
  const q = question.trim();
  const found = rules.kinds.find(([re]) => re.test(q)) ?? rules.kinds.find(([re]) => re.test(q.replace(LEAD, "")));
  const money = rules.money.test(q);
  if (!found && !money) return null;
  const stems = (words: string) => [...new Set(words.split(" ").map((w) => stem(w, lang)))];
  if (money && (!found || found[1] === "number")) return { lang, kind: "number", focusKind: "money", focus: [stems(rules.moneyWords)] };
  return { lang, kind: found?.[1] ?? null, ...(found?.[2] ? { focusKind: found[2] } : {}), focus: [] };
}

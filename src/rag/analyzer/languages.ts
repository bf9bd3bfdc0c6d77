/**
 * The languages the keyword analyzer knows: Snowball stemmers and stop words for the first thirteen, word
 * segmentation (Intl.Segmenter) for the four written without spaces. Codes are ISO 639-1, as the native stream's
 * `lang` parameter and the console use them.
 */
export const LANGUAGES = {
  en: { name: "English", native: "English" },
  de: { name: "German", native: "Deutsch" },
  fr: { name: "French", native: "Français" },
  es: { name: "Spanish", native: "Español" },
  it: { name: "Italian", native: "Italiano" },
  pt: { name: "Portuguese", native: "Português" },
  nl: { name: "Dutch", native: "Nederlands" },
  sv: { name: "Swedish", native: "Svenska" },
  da: { name: "Danish", native: "Dansk" },
  no: { name: "Norwegian", native: "Norsk" },
  fi: { name: "Finnish", native: "Suomi" },
  ru: { name: "Russian", native: "Русский" },
  tr: { name: "Turkish", native: "Türkçe" },
  zh: { name: "Chinese", native: "中文" },
  ja: { name: "Japanese", native: "日本語" },
  ko: { name: "Korean", native: "한국어" },
  th: { name: "Thai", native: "ไทย" },
} as const;

export type Lang = keyof typeof LANGUAGES;

export const LANGUAGE_CODES = Object.keys(LANGUAGES) as Lang[];

/** What analyzes text whose language is unknown, and the language of messages nobody asked to translate. */
export const DEFAULT_LANG: Lang = "en";

export const isLang = (s: unknown): s is Lang => typeof s === "string" && Object.hasOwn(LANGUAGES, s);

/** Aliases people type for a language: "nb"/"nn" are Norwegian, "de-AT" is German. */
export function toLang(s: string): Lang | null {
  const base = s.trim().toLowerCase().split(/[-_]/)[0] ?? "";
  const code = base === "nb" || base === "nn" ? "no" : base;
  return isLang(code) ? code : null;
}

/**
 * A comma-separated language list as the owner pins it ("de, en"); "" or "auto" = detect. Throws on an unknown
 * code so a typo is refused rather than silently ignored.
 */
export function parseLanguageList(s: string): Lang[] {
  const parts = s
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "" && p.toLowerCase() !== "auto");
  const out: Lang[] = [];
  for (const p of parts) {
    const l = toLang(p);
    if (!l) throw new Error(`unknown language "${p}" (known: ${LANGUAGE_CODES.join(", ")})`);
    if (!out.includes(l)) out.push(l);
  }
  return out;
}

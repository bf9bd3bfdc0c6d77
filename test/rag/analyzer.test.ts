import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { stemWord } from "../../src/rag/analyzer/stemmers.ts";
import { analyze, analyzeQuery, detectLanguage, type Lang, parseLanguageList, queryTerms, stem, wordTokens } from "../../src/rag/terms.ts";

const SNOWBALL = join(import.meta.dir, "../fixtures/snowball");

describe("stemming", () => {
  test("every stemmer gives the Snowball reference stem for a sample of the project's own test vocabulary", async () => {
    const files = readdirSync(SNOWBALL).filter((f) => f.endsWith(".tsv"));
    expect(files.length).toBe(13);
    for (const f of files) {
      const lang = f.slice(0, 2) as Lang;
      const pairs = (await Bun.file(join(SNOWBALL, f)).text())
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t") as [string, string]);
      expect(pairs.length).toBeGreaterThan(100);
      const wrong = pairs.filter(([w, s]) => w.length >= 3 && !/\d/.test(w) && stemWord(w, lang) !== s);
      expect({ lang, wrong }).toEqual({ lang, wrong: [] });
    }
  });

  test("inflected forms meet in every language the index stems", () => {
    const same: [Lang, string[]][] = [
      ["en", ["refund", "refunds", "refunded", "refunding"]],
      ["de", ["Vertrag", "Verträge", "Vertrages", "Verträgen"]],
      ["fr", ["contrat", "contrats"]],
      ["es", ["contrato", "contratos"]],
      ["it", ["contratto", "contratti"]],
      ["pt", ["contrato", "contratos"]],
      ["nl", ["contract", "contracten"]],
      ["sv", ["avtal", "avtalen", "avtals"]],
      ["da", ["aftale", "aftalen", "aftaler"]],
      ["no", ["avtale", "avtalen", "avtaler"]],
      ["fi", ["vuokra", "vuokran", "vuokrat", "vuokrasta"]],
      ["ru", ["договор", "договора", "договоры", "договором"]],
      ["tr", ["sözleşme", "sözleşmeler", "sözleşmenin"]],
      ["ko", ["도서관", "도서관에서", "도서관은"]],
    ];
    for (const [lang, words] of same) expect({ lang, stems: new Set(words.map((w) => stem(w, lang))).size }).toEqual({ lang, stems: 1 });
  });

  test("diacritics are folded after stemming, so a word typed without them still meets", () => {
    expect(stem("Müller", "de")).toBe(stem("Muller", "de"));
    expect(stem("für", "de")).toBe("fur");
    expect(stem("ёлка", "ru")).toBe(stem("елка", "ru"));
    expect(stem("Straße", "de")).toBe(stem("strasse", "de"));
  });
});

describe("analyze", () => {
  test("drops the language's stop words and stems the rest", () => {
    expect(analyze("Die Verträge der Mieter werden jährlich verlängert.", "de")).toEqual(["vertrag", "miet", "jahrlich", "verlangert"]);
    expect(analyze("The tenants' contracts are renewed every year.", "en")).toEqual(["tenant", "contract", "renew", "everi", "year"]);
    expect(analyze("Les contrats des locataires sont renouvelés chaque année.", "fr")).toEqual([
      "contrat",
      "locatair",
      "renouvel",
      "chaqu",
      "anne",
    ]);
  });

  test("segments Chinese, Japanese and Thai into words and strips Korean particles", () => {
    expect(analyze("我们的租赁合同规定押金为三个月的租金。", "zh")).toEqual(["租赁", "合同", "规定", "押金", "三个月", "租金"]);
    expect(analyze("東京の図書館は月曜日に休館します。", "ja")).toEqual(expect.arrayContaining(["東京", "図書館", "月曜日", "休館"]));
    expect(analyze("ห้องสมุดปิดทุกวันจันทร์", "th")).toEqual(expect.arrayContaining(["ห้อง", "สมุด", "ปิด", "จันทร์"]));
    expect(analyze("학생들은 도서관에서 공부합니다.", "ko")).toEqual(["학생", "도서관", "공부"]);
  });

  test("numbers, names and identifiers pass through unchanged", () => {
    expect(analyze("RFC 7693, ISO-8601 and foo_bar", "en")).toEqual(["rfc", "7693", "iso", "8601", "foo_bar"]);
  });

  test("an abbreviation's plural with a lower-case 's' meets its singular ('mRNAs' mRNA, 'TKIs' TKI); words in capitals keep theirs", () => {
    expect(analyze("mRNAs coding for TfR1; TKIs and VSMCs; the URLs of CD4s", "en")).toEqual(
      analyze("mRNA coding for TfR1; TKI and VSMC; the URL of CD4", "en"),
    );
    expect(analyze("Die PKWs der Firma", "de")).toEqual(analyze("Der PKW der Firma", "de"));
    // one capital is a name or a word ("Mrs", "Gas"); an "S" in capitals is part of the word ("GIS", "BUS")
    expect(analyze("Mrs Gas, GIS and BUS", "en")).toEqual(["mrs", "gas", "gis", "bus"]);
  });

  test("symbols a manual defines are terms: '$!' meets the '!' entry, '&&' is one, '-e' is not '-E'", () => {
    const bang = analyze("!: Expands to the process ID of the job most recently placed into the background", "en")[0];
    expect(bang).toStartWith("§");
    expect(analyzeQuery("What does $! expand to?", ["en"]).map((w) => w.key)).toContain(bang as string);
    expect(analyze("cmd1 && cmd2 || cmd3", "en")).toEqual(["cmd1", "§2626", "cmd2", "§7c7c", "cmd3"]);
    const [lower] = analyze("-e (set -e): Exit immediately", "en");
    const [upper] = analyze("-E (set -E): If set, any trap on ERR is inherited", "en");
    expect(lower).toStartWith("§");
    expect(upper).toStartWith("§");
    expect(lower).not.toBe(upper);
    expect(analyze("Qu'est-ce que c'est ? Rien ! x-ray, a - b", "fr").some((t) => t.startsWith("§"))).toBe(false);
    expect(analyze("Wie geht's? Gut! e-mail", "de").some((t) => t.startsWith("§"))).toBe(false);
  });

  test("English irregular verbs and plurals meet their base ('gave' give, 'threw' throw, 'children' child), ambiguous forms stay", () => {
    expect(analyze("The bride gave me a sovereign; she threw the key; the children", "en")).toEqual(
      analyze("The bride give me a sovereign; she throw the key; the child", "en"),
    );
    expect(stem("left")).not.toBe(stem("leave"));
    expect(stem("felt")).not.toBe(stem("feel"));
    expect(analyze("Sie gave", "de")).not.toContain(stem("give"));
  });

  test("a Turkish text keeps its dotless ı apart from i", () => {
    expect(analyze("KIRMIZI IŞIK", "tr")).toEqual(analyze("kırmızı ışık", "tr"));
    expect(analyze("İSTANBUL", "tr")).toEqual(analyze("istanbul", "tr"));
  });
});

describe("questions", () => {
  test("content words only: stop words and question words of the language go", () => {
    expect(queryTerms("What is the refund policy for annual plans?")).toEqual(["refund", "policy", "annual", "plans"]);
    expect(queryTerms("Wann wurde der Leuchtturm gebaut?", 32, "de")).toEqual(["leuchtturm", "gebaut"]);
    expect(queryTerms("¿Cuándo se construyó el faro?", 32, "es")).toEqual(["construyó", "faro"]);
    expect(queryTerms("How long are backups kept?")).toEqual(["backups", "kept"]);
  });

  test("each word is looked up as every analysis language stems it; the question's language gives the key", () => {
    const [w] = analyzeQuery("Verträge", ["de", "en"]);
    expect(w?.key).toBe("vertrag");
    expect(w?.forms).toEqual(["vertrag", "vertrag"].filter((v, i, a) => a.indexOf(v) === i));
    const [m] = analyzeQuery("Müller", ["en", "de"]);
    expect(m?.forms).toEqual(["muller", "mull"]);
  });

  test("a word that is a stop word in any analysis language is not searched", () => {
    expect(analyzeQuery("Wie lange ist die Kündigungsfrist?", ["en", "de"]).map((w) => w.word)).toEqual(["lange", "kündigungsfrist"]);
  });

  test("'What does X hold / mean / stand for?' searches for X: the verb only asks what it is", () => {
    expect(analyzeQuery("What does OLDPWD hold?", ["en"]).map((w) => w.word)).toEqual(["oldpwd"]);
    expect(analyzeQuery("What does HPC stand for?", ["en"]).map((w) => w.word)).toEqual(["hpc"]);
    expect(analyzeQuery("What does the tank hold when full?", ["en"]).map((w) => w.word)).toContain("hold");
  });

  test("word tokens are folded and lower-cased for comparing wording", () => {
    expect(wordTokens("Crème brûlée, İstanbul 3.5 mg")).toEqual(["creme", "brulee", "istanbul", "3", "5", "mg"]);
  });
});

describe("language detection", () => {
  const questions: [Lang, string][] = [
    ["en", "When was the lighthouse built?"],
    ["de", "Wann wurde der Leuchtturm gebaut und von wem?"],
    ["fr", "Quand le phare a-t-il été construit ?"],
    ["es", "¿Cuándo se construyó el faro?"],
    ["it", "Quando è stato costruito il faro?"],
    ["pt", "Quando foi construído o farol?"],
    ["nl", "Wanneer werd de vuurtoren gebouwd?"],
    ["sv", "När byggdes fyren och av vem?"],
    ["da", "Hvornår blev fyret bygget?"],
    ["fi", "Milloin majakka rakennettiin ja kuka sen rakensi?"],
    ["ru", "Когда был построен маяк?"],
    ["tr", "Deniz feneri ne zaman inşa edildi?"],
    ["zh", "灯塔是什么时候建造的？"],
    ["ja", "灯台はいつ建てられましたか？"],
    ["ko", "등대는 언제 지어졌습니까?"],
    ["th", "ประภาคารสร้างขึ้นเมื่อไหร่"],
  ];
  test("questions in seventeen languages are recognised", () => {
    for (const [lang, q] of questions) expect({ q, lang: detectLanguage(q).lang }).toEqual({ q, lang });
  });

  test("too little text is unreliable, and candidates limit the answer", () => {
    expect(detectLanguage("Kaution").reliable).toBe(false);
    expect(detectLanguage("2024").reliable).toBe(false);
    expect(detectLanguage("Kaution", { candidates: ["de"] }).lang).toBe("de");
    expect(detectLanguage("The contract runs for two years.", { candidates: ["de", "fr"] }).lang).not.toBe("en");
  });

  test("a pinned language list is parsed, aliases accepted and typos refused", () => {
    expect(parseLanguageList("de, EN,nb")).toEqual(["de", "en", "no"]);
    expect(parseLanguageList("auto")).toEqual([]);
    expect(() => parseLanguageList("de, xx")).toThrow(/unknown language "xx"/);
  });
});

import type { Config } from "../../config/index.ts";
import type { Check } from "./checks.ts";

/**
 * The analyzer works in this build (Snowball stems, Intl.Segmenter's dictionaries for Chinese and Japanese), and the
 * keyword index: what is still to be re-analyzed after an upgrade or a language pin, and the documents' languages.
 */
export async function checkLanguages(config: Config): Promise<Check> {
  const { ANALYZER_VERSION, analyze, detectLanguage } = await import("../../rag/terms.ts");
  const probes: [string, string[]][] = [
    [analyze("The refunds were refunded", "en").join(" "), ["refund refund"]],
    [analyze("Die Verträge der Mieter", "de").join(" "), ["vertrag miet"]],
    [analyze("我们的租赁合同", "zh").join(" "), ["租赁 合同"]],
    [detectLanguage("Wann wurde der Leuchtturm gebaut?").lang, ["de"]],
  ];
  const broken = probes.filter(([got, want]) => !want.includes(got)).map(([got]) => got);
  if (broken.length > 0)
    return { status: "error", summary: `the analyzer gives wrong results in this build: ${broken.join("; ")}`, analyzer: ANALYZER_VERSION };
  const index = config.databaseUrl
    ? await (await import("../../store/postgres/diagnostics.pg.ts"))
        .pgKeywordIndexInfo(config.databaseUrl, ANALYZER_VERSION)
        .catch(() => null)
    : await (await import("../../store/sqlite/diagnostics.ts")).keywordIndexInfo(config.dataDir, ANALYZER_VERSION).catch(() => null);
  const langs = index?.languages.map((l) => `${l.lang} ${l.documents}`).join(", ") || "no trained documents";
  const pending = index && index.pending_deployments > 0;
  return {
    status: pending ? "warn" : "ok",
    summary: pending
      ? `analyzer ${ANALYZER_VERSION}; ${index.pending_chunks} chunks of ${index.pending_deployments} deployment(s) wait to be re-analyzed (serve does it when idle; docchat reindex --keywords-only now); documents: ${langs}`
      : `analyzer ${ANALYZER_VERSION} (Snowball stems, stop words, word segmentation); documents: ${langs}`,
    analyzer: ANALYZER_VERSION,
    ...(index ? { keyword_index: index } : {}),
  };
}

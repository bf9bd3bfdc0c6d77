import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { GENERATED, renderWebAssets } from "../../scripts/build-web.ts";

describe("embedded web assets", () => {
  test("src/web/generated/web-assets.ts matches the console and widget sources (run `bun run build:web` after changing src/web)", async () => {
    expect(readFileSync(GENERATED, "utf8")).toBe(await renderWebAssets());
  });

  test("the bundles build DOM from text only: no HTML parsing sinks", async () => {
    const text = readFileSync(GENERATED, "utf8");
    for (const sink of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"])
      expect(text).not.toContain(sink);
  });
});

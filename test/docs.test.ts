import { describe, expect, test } from "bun:test";
import { apiMarkdown, configurationMarkdown, DOC_FILES, errorsMarkdown } from "../scripts/gen-docs.ts";

describe("generated docs", () => {
  test("docs/configuration.md matches src/config/definition.ts (run `bun run docs` after changing a setting)", async () => {
    expect(await Bun.file(DOC_FILES.configuration).text()).toBe(configurationMarkdown());
  });

  test("docs/errors.md matches src/errors/catalogue.ts (run `bun run docs` after changing an error code)", async () => {
    expect(await Bun.file(DOC_FILES.errors).text()).toBe(errorsMarkdown());
  });

  test("docs/api.md matches the public OpenAPI document (run `bun run docs` after changing a public route or its schema)", async () => {
    expect(await Bun.file(DOC_FILES.api).text()).toBe(await apiMarkdown());
  });
});

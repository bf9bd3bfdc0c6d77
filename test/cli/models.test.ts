import { afterAll, expect, test } from "bun:test";
import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { sharedModel } from "../helpers/paths.ts";
import { runCliProcess, tempDir } from "../helpers/server.ts";

const modelsDir = tempDir("docchat-models-");
afterAll(() => rmSync(modelsDir, { recursive: true, force: true }));

test("docchat models lists a GGUF dropped into the models folder and makes it the active answer model", async () => {
  const empty = await runCliProcess(["models", "--models", modelsDir, "--json"]);
  expect(empty.code).toBe(0);
  const before = JSON.parse(empty.stdout);
  expect(before.gguf_models).toEqual([]);
  expect(before.active_llm).toStartWith("extractive");
  expect(before.active_embedder).toStartWith("none");

  symlinkSync(sharedModel("llama-2-tiny-random.gguf"), join(modelsDir, "tiny.gguf"));
  const after = JSON.parse((await runCliProcess(["models", "--models", modelsDir, "--json"])).stdout);
  expect(after.gguf_models).toEqual([join(modelsDir, "tiny.gguf")]);
  expect(after.active_llm).toBe(`llama ${join(modelsDir, "tiny.gguf")}`);
});

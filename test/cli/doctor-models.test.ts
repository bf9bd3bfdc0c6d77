import { afterAll, expect, test } from "bun:test";
import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { sharedModel } from "../helpers/paths.ts";
import { runCliProcess, tempDir } from "../helpers/server.ts";

const root = tempDir("docchat-doctor-models-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("doctor checks the chat GGUF found in the models folder, not the unset DOCCHAT_LLM_MODEL", async () => {
  const models = join(root, "models");
  await Bun.write(join(models, ".keep"), "");
  symlinkSync(sharedModel("llama-2-tiny-random.gguf"), join(models, "tiny.gguf"));
  const r = await runCliProcess(["doctor", "--json", "--offline"], {
    DOCCHAT_DATA: join(root, "data"),
    DOCCHAT_MODELS: models,
    DOCCHAT_LLM_MODEL: "",
    DOCCHAT_EMBEDDER: "none",
    DOCCHAT_LOG_LEVEL: "silent",
  });
  const report = JSON.parse(r.stdout) as { llm: { status: string; model: string } };
  expect(report.llm.status).toBe("ok");
  expect(report.llm.model).toBe(join(models, "tiny.gguf"));
});

test("doctor --load embeds a probe with an in-process GGUF embedder and gives its dimension", async () => {
  const r = await runCliProcess(["doctor", "--json", "--load", "--offline"], {
    DOCCHAT_DATA: join(root, "data2"),
    DOCCHAT_MODELS: join(root, "none"),
    DOCCHAT_EMBEDDER: "gguf",
    DOCCHAT_EMBEDDER_MODEL: sharedModel("llama-2-tiny-random.gguf"),
    DOCCHAT_LLM: "extractive",
    DOCCHAT_LOG_LEVEL: "silent",
  });
  const report = JSON.parse(r.stdout) as { embedder: { status: string; where: string; id: string; dimension: number } };
  expect(report.embedder).toMatchObject({ status: "ok", where: "local", id: "gguf:llama-2-tiny-random", dimension: 8 });
});

/**
 * Reads a sentence-embedding model folder as exported for transformers.js / sentence-transformers
 * (config.json, tokenizer.json, onnx/model*.onnx or model*.onnx, optional 1_Pooling/config.json) and decides how
 * to run it. Pure file inspection: nothing here loads onnxruntime, so `docchat models` can list folders cheaply.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { prefixesFor } from "./model-prefixes.ts";

export type Pooling = "mean" | "cls";
/** transformers.js dtype names; each maps to a file-name suffix (model_quantized.onnx is q8, ...). */
export type OnnxDtype = "fp32" | "q8" | "int8" | "uint8" | "fp16" | "q4";

export interface OnnxModelFolder {
  dir: string;
  name: string;
  /** "onnx" (Hugging Face export layout) or "" (model.onnx at the folder root) */
  subfolder: string;
  dtype: OnnxDtype;
  modelFile: string;
  pooling: Pooling;
  queryPrefix: string;
  documentPrefix: string;
  /** sentence-transformers' max_seq_length; the tokenizer's own limit (often 512) applies when absent */
  maxSeqLength?: number;
  /** config.json hidden_size; the embedder still checks it against the real output */
  hiddenSize?: number;
}

/** Optional per-folder overrides, for models whose conventions can't be read from their files. */
export interface DocchatModelJson {
  pooling?: Pooling;
  queryPrefix?: string;
  documentPrefix?: string;
  maxSeqLength?: number;
}

// Preference order: full precision first, it is what the published retrieval scores were measured with.
const DTYPE_SUFFIXES: [OnnxDtype, string][] = [
  ["fp32", ""],
  ["q8", "_quantized"],
  ["int8", "_int8"],
  ["uint8", "_uint8"],
  ["fp16", "_fp16"],
  ["q4", "_q4"],
];

function readJson<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

function findModelFile(dir: string): Pick<OnnxModelFolder, "subfolder" | "dtype" | "modelFile"> | undefined {
  for (const subfolder of ["onnx", ""]) {
    for (const [dtype, suffix] of DTYPE_SUFFIXES) {
      const modelFile = join(dir, subfolder, `model${suffix}.onnx`);
      if (existsSync(modelFile)) return { subfolder, dtype, modelFile };
    }
  }
  return undefined;
}

function readPooling(dir: string): Pooling | undefined {
  const modules = readJson<{ type?: string; path?: string }[]>(join(dir, "modules.json"));
  const poolingPath = modules?.find((m) => m.type?.endsWith("Pooling"))?.path ?? "1_Pooling";
  const cfg = readJson<Record<string, unknown>>(join(dir, poolingPath, "config.json"));
  if (cfg?.pooling_mode_cls_token === true) return "cls";
  if (cfg?.pooling_mode_mean_tokens === true) return "mean";
  return undefined;
}

function readPrefixes(dir: string, name: string, override: DocchatModelJson): { queryPrefix: string; documentPrefix: string } {
  const st = readJson<{ prompts?: Record<string, string> }>(join(dir, "config_sentence_transformers.json"));
  const known = prefixesFor(name);
  return {
    queryPrefix: override.queryPrefix ?? st?.prompts?.query ?? known.query,
    documentPrefix: override.documentPrefix ?? st?.prompts?.document ?? st?.prompts?.passage ?? known.document,
  };
}

/** Returns how to run the folder, or undefined when it lacks a tokenizer, a config or an .onnx file. */
export function inspectModelFolder(dirPath: string): OnnxModelFolder | undefined {
  const dir = resolve(dirPath);
  if (!existsSync(join(dir, "tokenizer.json"))) return undefined;
  const config = readJson<{ hidden_size?: number; d_model?: number }>(join(dir, "config.json"));
  const file = findModelFile(dir);
  if (!config || !file) return undefined;
  const name = basename(dir);
  const override = readJson<DocchatModelJson>(join(dir, "docchat.json")) ?? {};
  const st = readJson<{ max_seq_length?: number }>(join(dir, "sentence_bert_config.json"));
  return {
    dir,
    name,
    ...file,
    // sentence-transformers defaults to mean pooling; bge ships a 1_Pooling config saying cls.
    pooling: override.pooling ?? readPooling(dir) ?? "mean",
    ...readPrefixes(dir, name, override),
    maxSeqLength: override.maxSeqLength ?? st?.max_seq_length,
    hiddenSize: config.hidden_size ?? config.d_model,
  };
}

/** Lists usable model folders directly under modelsDir (and modelsDir itself if it is one), sorted by name. */
export function findModelFolders(modelsDir: string): OnnxModelFolder[] {
  if (!existsSync(modelsDir) || !statSync(modelsDir).isDirectory()) return [];
  const self = inspectModelFolder(modelsDir);
  if (self) return [self];
  return readdirSync(modelsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() || e.isSymbolicLink())
    .map((e) => inspectModelFolder(join(modelsDir, e.name)))
    .filter((f): f is OnnxModelFolder => f !== undefined)
    .sort((a, b) => a.name.localeCompare(b.name));
}

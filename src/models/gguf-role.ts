/**
 * What a GGUF file is for, read from its metadata rather than its name: llama.cpp's converter records the
 * pooling type of embedding models (`{arch}.pooling_type`: 1 mean, 2 cls, 3 last) and of rerankers (4 rank), and
 * encoder-only architectures (bert, nomic-bert, jina-bert, ...) are embedding models whatever they are called.
 * Everything else is a chat model.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readGgufMetadata } from "./gguf-metadata.ts";

export type GgufRole = "chat" | "embedding" | "reranker";

const POOLING_RANK = 4;
const ENCODER_ARCHITECTURES = new Set([
  "bert",
  "nomic-bert",
  "nomic-bert-moe",
  "jina-bert-v2",
  "jina-bert-v3",
  "modern-bert",
  "neo-bert",
  "t5encoder",
]);

export interface GgufInfo {
  path: string;
  role: GgufRole;
  architecture: string;
  poolingType: number | null;
  /** general.name, when the file has one */
  name: string | null;
}

export function inspectGguf(path: string): GgufInfo {
  const meta = readGgufMetadata(path);
  const architecture = String(meta.get("general.architecture") ?? "");
  const pooling = meta.get(`${architecture}.pooling_type`);
  const poolingType = typeof pooling === "number" ? pooling : null;
  const labels = meta.has(`${architecture}.classifier.output_labels`);
  const role: GgufRole =
    poolingType === POOLING_RANK || labels
      ? "reranker"
      : (poolingType !== null && poolingType > 0) || ENCODER_ARCHITECTURES.has(architecture)
        ? "embedding"
        : "chat";
  const name = meta.get("general.name");
  return { path, role, architecture, poolingType, name: typeof name === "string" ? name : null };
}

/** Every readable .gguf file in the folder, sorted by file name, with its role. Unreadable files are skipped. */
export function findGgufFiles(dir: string): GgufInfo[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => /\.gguf$/i.test(f))
      .sort();
  } catch {
    return [];
  }
  const out: GgufInfo[] = [];
  for (const f of files) {
    try {
      out.push(inspectGguf(join(dir, f)));
    } catch {
      // A partial download or a foreign file: not a model docchat can use.
    }
  }
  return out;
}

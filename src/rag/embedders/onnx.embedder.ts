/**
 * Runs a local sentence-embedding model folder (bge-small-en-v1.5, all-MiniLM-L6-v2, ...) through
 * transformers.js + onnxruntime-node, strictly offline.
 *
 * Event loop: onnxruntime-node's InferenceSession.run is a synchronous native call (the JS wrapper only defers it
 * with setImmediate), and tokenisation and pooling are JS, so a batch blocks this thread for its whole inference
 * time. Inside the server use createWorkerEmbedder (worker.embedder.ts), which runs this same code in a
 * Bun Worker; this in-thread variant is for CLI/bench/indexing jobs and for the worker itself.
 */
import type { FeatureExtractionPipeline } from "@huggingface/transformers";
import type { Embedder } from "../embedder.ts";
import { inspectModelFolder, type OnnxModelFolder, type Pooling } from "./onnx-model-folder.ts";

export interface OnnxEmbedderOptions {
  modelDir: string;
  /** texts per inference call; larger batches pad to the longest text in the batch */
  batchSize?: number;
  /** overrides docchat.json / name-based detection */
  queryPrefix?: string;
  pooling?: Pooling;
  /** onnxruntime intra-op threads; onnxruntime picks the core count when omitted */
  threads?: number;
}

/** Splits a pooled [n, dim] tensor into one unit vector per text (copies, so the tensor can be freed). */
function rows(data: Float32Array, n: number, dim: number): Float32Array[] {
  return Array.from({ length: n }, (_, i) => data.slice(i * dim, (i + 1) * dim));
}

export async function createOnnxEmbedder(options: OnnxEmbedderOptions): Promise<Embedder> {
  const folder: OnnxModelFolder | undefined = inspectModelFolder(options.modelDir);
  if (!folder) {
    throw new Error(`${options.modelDir} is not a sentence-embedding model folder (needs config.json, tokenizer.json, onnx/model.onnx)`);
  }
  // transformers.js is its own entry point in the binary, imported by URL so the bundle every start loads stays without it
  const { env, pipeline } = (await import(new URL("./transformers.lazy.ts", import.meta.url).href)) as typeof import("./transformers.lazy.ts");
  // Never reach for the Hugging Face hub: the model is a local folder, addressed by absolute path (which
  // transformers.js treats as a path, not a repo id, so env.localModelPath is not consulted).
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  const extractor: FeatureExtractionPipeline = await pipeline("feature-extraction", folder.dir, {
    local_files_only: true,
    subfolder: folder.subfolder,
    dtype: folder.dtype,
    device: "cpu",
    session_options: options.threads ? { intraOpNumThreads: options.threads, interOpNumThreads: 1 } : {},
  });
  if (folder.maxSeqLength) {
    // sentence-transformers truncates at max_seq_length (256 for MiniLM) although the tokenizer allows 512;
    // matching it keeps vectors comparable with published scores and halves the cost of long passages.
    Object.defineProperty(extractor.tokenizer, "model_max_length", { value: folder.maxSeqLength });
  }
  const pooling = options.pooling ?? folder.pooling;
  const queryPrefix = options.queryPrefix ?? folder.queryPrefix;
  const batchSize = Math.max(1, options.batchSize ?? 8);

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    const out = await extractor(texts, { pooling, normalize: true });
    // fp16 exports pool to float16 tensors; the index stores float32.
    const f32 = out.to("float32");
    const [n, dim] = f32.dims as [number, number];
    const result = rows(f32.data as Float32Array, n, dim);
    out.dispose();
    return result;
  }

  // The output width is the truth (config hidden_size can disagree, e.g. for projection heads).
  const [probe] = await embedBatch(["dimension probe"]);
  const dimension = probe?.length ?? folder.hiddenSize ?? 0;

  return {
    id: `onnx:${folder.name}`,
    dimension,
    async embedDocuments(texts) {
      // A batch is padded to its longest text, so batching texts of similar length avoids paying for padding.
      const order = texts.map((t, i) => ({ i, len: t.length })).sort((a, b) => a.len - b.len);
      const vectors = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += batchSize) {
        const slice = order.slice(start, start + batchSize);
        const batch = await embedBatch(slice.map(({ i }) => folder.documentPrefix + (texts[i] ?? "")));
        slice.forEach(({ i }, k) => {
          vectors[i] = batch[k] ?? new Float32Array(dimension);
        });
      }
      return vectors;
    },
    async embedQuery(text) {
      const [v] = await embedBatch([queryPrefix + text]);
      if (!v) throw new Error("embedding model returned no vector");
      return v;
    },
    async close() {
      await extractor.dispose();
    },
  };
}

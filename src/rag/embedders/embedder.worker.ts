/**
 * Bun Worker body for createWorkerEmbedder: owns one in-thread embedder so that its synchronous inference
 * (onnxruntime-node's run) blocks this thread instead of the server's event loop.
 * Requests are handled one at a time, in arrival order.
 */
import type { Embedder } from "../embedder.ts";
import { createInThreadEmbedder, type EmbedderSpec } from "./embedder-spec.ts";

export type WorkerRequest =
  | { id: number; kind: "init"; spec: EmbedderSpec }
  | { id: number; kind: "documents"; texts: string[] }
  | { id: number; kind: "query"; text: string }
  | { id: number; kind: "close" };

export type WorkerResponse =
  | { id: number; ok: true; vectors?: Float32Array[]; info?: { id: string; dimension: number } }
  | { id: number; ok: false; error: string };

declare const self: Worker;

let embedder: Embedder | undefined;
let queue: Promise<void> = Promise.resolve();

async function handle(req: WorkerRequest): Promise<WorkerResponse> {
  if (req.kind === "init") {
    embedder = await createInThreadEmbedder(req.spec);
    return { id: req.id, ok: true, info: { id: embedder.id, dimension: embedder.dimension } };
  }
  if (!embedder) throw new Error("embedder worker used before init");
  if (req.kind === "documents") return { id: req.id, ok: true, vectors: await embedder.embedDocuments(req.texts) };
  if (req.kind === "query") return { id: req.id, ok: true, vectors: [await embedder.embedQuery(req.text)] };
  await embedder.close?.();
  embedder = undefined;
  return { id: req.id, ok: true };
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const req = event.data;
  queue = queue.then(async () => {
    try {
      const res = await handle(req);
      // Transfer the vectors' buffers rather than copying them back to the main thread.
      const buffers = res.ok && res.vectors ? res.vectors.map((v) => v.buffer as ArrayBuffer) : [];
      self.postMessage(res, buffers);
    } catch (err) {
      self.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  });
};

/**
 * The ONNX embedder isolated in a Bun Worker. onnxruntime-node runs inference synchronously on the calling thread
 * (see onnx.embedder.ts), so in the server the model must live on another thread or every batch stalls HTTP and
 * SSE traffic for its full duration. Same options, same vectors as createOnnxEmbedder.
 *
 * Compiled binary: `bun build --compile` must be given onnx-embedder.worker.ts as an extra entrypoint so the
 * `new URL(..., import.meta.url)` below resolves inside the executable.
 */
import type { Embedder } from "../embedder.ts";
import type { WorkerRequest, WorkerResponse } from "./onnx-embedder.worker.ts";
import type { OnnxEmbedderOptions } from "./onnx.embedder.ts";

type Pending = { resolve: (res: WorkerResponse & { ok: true }) => void; reject: (err: Error) => void };
type RequestBody = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

export async function createOnnxWorkerEmbedder(options: OnnxEmbedderOptions): Promise<Embedder> {
  const worker = new Worker(new URL("./onnx-embedder.worker.ts", import.meta.url).href);
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let closed = false;

  worker.onmessage = (event: MessageEvent<WorkerResponse>) => {
    const res = event.data;
    const p = pending.get(res.id);
    pending.delete(res.id);
    if (res.ok) p?.resolve(res);
    else p?.reject(new Error(res.error));
  };
  worker.onerror = (event) => {
    for (const p of pending.values()) p.reject(new Error(`embedder worker crashed: ${event.message}`));
    pending.clear();
  };

  function call(body: RequestBody): Promise<WorkerResponse & { ok: true }> {
    if (closed) return Promise.reject(new Error("embedder is closed"));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...body, id });
    });
  }

  let info: { id: string; dimension: number } | undefined;
  try {
    info = (await call({ kind: "init", options })).info;
  } catch (err) {
    worker.terminate();
    throw err;
  }
  if (!info) throw new Error("embedder worker returned no model info");

  return {
    id: info.id,
    dimension: info.dimension,
    async embedDocuments(texts) {
      if (texts.length === 0) return [];
      return (await call({ kind: "documents", texts })).vectors ?? [];
    },
    async embedQuery(text) {
      const [v] = (await call({ kind: "query", text })).vectors ?? [];
      if (!v) throw new Error("embedder worker returned no vector");
      return v;
    },
    async close() {
      if (closed) return;
      await call({ kind: "close" }).catch(() => undefined);
      closed = true;
      worker.terminate();
    },
  };
}

/**
 * Runs an ONNX embedder in a Bun Worker. onnxruntime-node computes synchronously on its thread (it wraps a blocking
 * native run() in setImmediate), so in the server the model lives on another thread or each batch stalls HTTP and
 * SSE traffic for its full duration. (Remote and GGUF embedders are async I/O or native threads: no worker needed.)
 * Measured with a MiniLM-sized graph: 50–600 ms event-loop stalls in-thread, under 10 ms through the worker.
 *
 * Compiled binary: `bun build --compile` must be given embedder.worker.ts as an extra entrypoint so the
 * `new URL(..., import.meta.url)` below resolves inside the executable.
 */
import type { Embedder } from "../embedder.ts";
import type { WorkerRequest, WorkerResponse } from "./embedder.worker.ts";
import type { EmbedderSpec } from "./embedder-spec.ts";

type Ok = Extract<WorkerResponse, { ok: true }>;
type RequestBody = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

export async function createWorkerEmbedder(spec: EmbedderSpec): Promise<Embedder> {
  const worker = new Worker(new URL("./embedder.worker.ts", import.meta.url).href);
  const pending = new Map<number, { resolve: (res: Ok) => void; reject: (err: Error) => void }>();
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

  function call(body: RequestBody): Promise<Ok> {
    if (closed) return Promise.reject(new Error("embedder is closed"));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...body, id });
    });
  }

  const info = await call({ kind: "init", spec }).then(
    (res) => res.info,
    (err: unknown) => {
      worker.terminate();
      throw err;
    },
  );
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

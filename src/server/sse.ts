/**
 * The one SSE encoder. Frames are JSON objects (sent as `data: <json>`) or raw strings (`data: [DONE]`).
 * Comment heartbeats keep idle proxies and Bun's idle timer (10 s by default) from closing a quiet stream;
 * a client that goes away cancels the stream, which aborts `abort` so generation stops upstream too.
 */
export type SseFrame = object | string;

export const HEARTBEAT_MS = 4000;

const encoder = new TextEncoder();
const encodeFrame = (f: SseFrame) => encoder.encode(`data: ${typeof f === "string" ? f : JSON.stringify(f)}\n\n`);

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

export function sseResponse(
  frames: AsyncIterable<SseFrame>,
  opts: { abort: AbortController; headers?: Record<string, string>; heartbeatMs?: number; onUnexpected?: (e: unknown) => SseFrame | null },
): Response {
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const stop = () => {
    closed = true;
    clearInterval(heartbeat);
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (bytes: Uint8Array) => {
        if (closed) return;
        try {
          controller.enqueue(bytes);
        } catch {
          stop();
        }
      };
      heartbeat = setInterval(() => send(encoder.encode(": ping\n\n")), opts.heartbeatMs ?? HEARTBEAT_MS);
      void (async () => {
        try {
          for await (const frame of frames) send(encodeFrame(frame));
        } catch (e) {
          const last = opts.onUnexpected?.(e);
          if (last) send(encodeFrame(last));
        } finally {
          if (!closed) {
            stop();
            try {
              controller.close();
            } catch {}
          }
        }
      })();
    },
    cancel() {
      stop();
      opts.abort.abort();
    },
  });
  return new Response(stream, { status: 200, headers: { ...opts.headers, ...SSE_HEADERS } });
}

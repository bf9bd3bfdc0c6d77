/**
 * The one SSE encoder. Frames are JSON objects (sent as `data: <json>`) or raw strings (`data: [DONE]`).
 * Comment heartbeats keep idle proxies and Bun's idle timer (10 s by default) from closing a quiet stream;
 * a client that goes away cancels the stream, which aborts `abort` so generation stops upstream too.
 */
export type SseFrame = object | string;

export const HEARTBEAT_MS = 4000;

/** Names the SSE event of a frame (`event: <name>` before its data), as the Responses API stream does. */
export type EventNamer = (frame: object) => string | undefined;

const encoder = new TextEncoder();
function encodeFrame(f: SseFrame, eventOf?: EventNamer): Uint8Array {
  if (typeof f === "string") return encoder.encode(`data: ${f}\n\n`);
  const name = eventOf?.(f);
  return encoder.encode(`${name ? `event: ${name}\n` : ""}data: ${JSON.stringify(f)}\n\n`);
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

export function sseResponse(
  frames: AsyncIterable<SseFrame>,
  opts: {
    abort: AbortController;
    headers?: Record<string, string>;
    heartbeatMs?: number;
    onUnexpected?: (e: unknown) => SseFrame | null;
    eventOf?: EventNamer;
  },
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
          for await (const frame of frames) send(encodeFrame(frame, opts.eventOf));
        } catch (e) {
          const last = opts.onUnexpected?.(e);
          if (last) send(encodeFrame(last, opts.eventOf));
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

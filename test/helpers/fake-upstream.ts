/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 and a random port, for tests of anything that calls an
 * upstream model. It records every request and can be switched between behaviours with `setMode`.
 */

export type FakeUpstreamMode =
  /** answer normally (streamed word by word when `stream` is true); usage is sent when asked for */
  | { kind: "reply"; text?: string }
  /** answer with this HTTP status and an OpenAI-style error body */
  | { kind: "fail"; status?: number }
  /** accept the connection and never answer (`before-headers`), or send headers and then nothing */
  | { kind: "hang"; stage: "before-headers" | "before-first-token" }
  /** stream `tokens` words with `delayMs` between them, long enough to abort in the middle */
  | { kind: "slow"; delayMs?: number; tokens?: number }
  /** a 200 event stream whose first frame is not JSON */
  | { kind: "malformed" }
  /** a few deltas, then the connection ends without finish_reason or [DONE] */
  | { kind: "truncated" };

/** What a chat-completions client sends; fields we do not read stay reachable through the index signature. */
export interface FakeChatRequestBody {
  model?: string;
  messages?: { role?: string; content?: unknown }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  temperature?: number;
  [field: string]: unknown;
}

export interface FakeUpstreamCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** the parsed JSON body (undefined when it was not JSON) */
  body: FakeChatRequestBody | undefined;
  /** true once the client went away before the response was complete */
  aborted: boolean;
  /** true once the full response was sent */
  completed: boolean;
}

export interface FakeUpstream {
  /** base URL including /v1, e.g. http://127.0.0.1:40123/v1 */
  url: string;
  calls: FakeUpstreamCall[];
  setMode(mode: FakeUpstreamMode): void;
  /** resolves when the call at `index` (default: the latest) is aborted by the client */
  waitForAbort(index?: number): Promise<FakeUpstreamCall>;
  close(): Promise<void>;
}

export const FAKE_UPSTREAM_REPLY = "The fake upstream says hello from a real HTTP server.";

const encoder = new TextEncoder();

function frame(data: unknown): Uint8Array {
  return encoder.encode(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

function chunk(content: string | null, finishReason: string | null = null) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 0,
    model: "fake-model",
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finishReason }],
  };
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function promptTokens(body: FakeChatRequestBody | undefined): number {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  return messages.reduce((n, m) => n + (typeof m.content === "string" ? countWords(m.content) : 0), 0);
}

export function startFakeUpstream(opts: { mode?: FakeUpstreamMode } = {}): FakeUpstream {
  let mode: FakeUpstreamMode = opts.mode ?? { kind: "reply" };
  const calls: FakeUpstreamCall[] = [];
  const abortWaiters = new Map<FakeUpstreamCall, (() => void)[]>();

  const markAborted = (call: FakeUpstreamCall) => {
    if (call.completed || call.aborted) return;
    call.aborted = true;
    for (const resolve of abortWaiters.get(call) ?? []) resolve();
    abortWaiters.delete(call);
  };

  /** Streams `pieces` as content deltas, then finish_reason, usage (when asked) and [DONE]. */
  function streamPieces(call: FakeUpstreamCall, pieces: string[], delayMs: number, ending: "full" | "cut"): Response {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(
          frame({
            ...chunk(null),
            choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
          }),
        );
        for (const piece of pieces) {
          if (delayMs > 0) await Bun.sleep(delayMs);
          if (cancelled) return;
          controller.enqueue(frame(chunk(piece)));
        }
        if (ending === "full") {
          controller.enqueue(frame(chunk(null, "stop")));
          if (call.body?.stream_options?.include_usage) {
            const usage = { prompt_tokens: promptTokens(call.body), completion_tokens: pieces.length };
            controller.enqueue(
              frame({
                ...chunk(null),
                choices: [],
                usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
              }),
            );
          }
          controller.enqueue(frame("[DONE]"));
        }
        call.completed = true;
        controller.close();
      },
      cancel() {
        cancelled = true;
        markAborted(call);
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  }

  /** An SSE comment makes Bun flush the headers; then nothing until the client leaves. */
  function hangAfterHeaders(call: FakeUpstreamCall): Response {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(": waiting\n\n"));
      },
      cancel() {
        markAborted(call);
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  }

  function replyJson(call: FakeUpstreamCall, text: string): Response {
    call.completed = true;
    const usage = { prompt_tokens: promptTokens(call.body), completion_tokens: countWords(text) };
    return Response.json({
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 0,
      model: "fake-model",
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  }

  function respond(call: FakeUpstreamCall, req: Request): Response | Promise<Response> {
    const streaming = call.body?.stream === true;
    switch (mode.kind) {
      case "fail":
        call.completed = true;
        return Response.json(
          { error: { message: "fake upstream failure", type: "server_error", code: null } },
          { status: mode.status ?? 500 },
        );
      case "hang":
        if (mode.stage === "before-headers") {
          return new Promise((resolve) => req.signal.addEventListener("abort", () => resolve(new Response(null))));
        }
        return hangAfterHeaders(call);
      case "malformed":
        call.completed = true;
        return new Response("data: {this is not json\n\n", { headers: { "content-type": "text/event-stream" } });
      case "truncated":
        return streamPieces(call, ["Half ", "an "], 0, "cut");
      case "slow": {
        const words = Array.from({ length: mode.tokens ?? 200 }, (_, i) => `word${i} `);
        return streamPieces(call, words, mode.delayMs ?? 50, "full");
      }
      case "reply": {
        const text = mode.text ?? FAKE_UPSTREAM_REPLY;
        return streaming ? streamPieces(call, text.match(/\S+\s*/g) ?? [], 0, "full") : replyJson(call, text);
      }
    }
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0, // "hang" modes must hang until the client gives up, not until Bun's idle timer does
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" && path.endsWith("/models")) {
        return Response.json({
          object: "list",
          data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }],
        });
      }
      if (req.method !== "POST" || !path.endsWith("/chat/completions")) return new Response("not found", { status: 404 });
      const raw = await req.text();
      let body: FakeChatRequestBody | undefined;
      try {
        body = JSON.parse(raw) as FakeChatRequestBody;
      } catch {
        body = undefined;
      }
      const call: FakeUpstreamCall = {
        method: req.method,
        path,
        headers: Object.fromEntries(req.headers),
        body,
        aborted: false,
        completed: false,
      };
      calls.push(call);
      req.signal.addEventListener("abort", () => markAborted(call));
      return respond(call, req);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    calls,
    setMode(next) {
      mode = next;
    },
    waitForAbort(index) {
      const call = calls[index ?? calls.length - 1];
      if (!call) return Promise.reject(new Error("fake upstream: no such call"));
      if (call.aborted) return Promise.resolve(call);
      return new Promise((resolve) => {
        abortWaiters.set(call, [...(abortWaiters.get(call) ?? []), () => resolve(call)]);
      });
    },
    async close() {
      await server.stop(true);
    },
  };
}

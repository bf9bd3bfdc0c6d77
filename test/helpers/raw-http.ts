/**
 * A hand-driven HTTP/1.1 request over a real TCP socket, for tests that need to see when the server answers
 * relative to how much of the body was sent (fetch only resolves once the whole body is out).
 */
export interface RawReply {
  /** status code of the first response line, or null when none arrived in time */
  status: number | null;
  /** the response as text so far (headers and whatever body arrived) */
  text: string;
  /** body bytes written before the answer arrived (or until the deadline) */
  sent: number;
}

export async function rawRequest(opts: {
  url: string;
  head: string;
  /** body bytes to send in total; sending stops as soon as the response starts */
  bodyBytes: number;
  chunkBytes?: number;
  /** pause between chunks */
  gapMs?: number;
  timeoutMs?: number;
  /** send only this many body bytes, then hold the connection open until the answer or the deadline */
  stopAfter?: number;
  /** resolves when the caller wants the held connection closed */
  release?: Promise<void>;
}): Promise<RawReply> {
  const u = new URL(opts.url);
  const chunk = new Uint8Array(opts.chunkBytes ?? 65_536).fill(97);
  let text = "";
  let sent = 0;
  let answered = false;
  const decoder = new TextDecoder();
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const socket = await Bun.connect({
    hostname: u.hostname,
    port: Number(u.port),
    socket: {
      data(_s, d) {
        text += decoder.decode(d, { stream: true });
        if (text.includes("\r\n")) answered = true;
      },
      close() {
        answered = true;
      },
      error() {
        answered = true;
      },
      drain() {},
    },
  });
  socket.write(opts.head);
  const limit = Math.min(opts.bodyBytes, opts.stopAfter ?? Number.POSITIVE_INFINITY);
  while (!answered && sent < limit && Date.now() < deadline) {
    const n = Math.min(chunk.byteLength, limit - sent);
    const w = socket.write(n === chunk.byteLength ? chunk : chunk.subarray(0, n));
    sent += w;
    if (w < n || opts.gapMs) await Bun.sleep(opts.gapMs ?? 1);
  }
  let released = false;
  void opts.release?.then(() => {
    released = true;
  });
  while (!answered && !released && Date.now() < deadline) await Bun.sleep(5);
  // Give a just-started response a moment to arrive in full.
  if (answered) await Bun.sleep(20);
  socket.end();
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  return { status: m ? Number(m[1]) : null, text, sent };
}

/** Request head for a multipart POST with a declared length (the body itself is filler). */
export function multipartHead(path: string, host: string, bodyBytes: number, headers: Record<string, string> = {}): string {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: multipart/form-data; boundary=----docchat\r\ncontent-length: ${bodyBytes}\r\n${extra}\r\n`;
}

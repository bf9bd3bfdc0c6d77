/** A response body that passed its cap: the reply is refused rather than held in memory. */
export class ResponseTooLargeError extends Error {
  override name = "ResponseTooLargeError";
  constructor(readonly limit: number) {
    super(`the response is larger than ${limit} bytes`);
  }
}

/** A declared length over the cap is refused before a byte is read. */
function refuseDeclared(res: Response, maxBytes: number): void {
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body?.cancel().catch(() => {});
    throw new ResponseTooLargeError(maxBytes);
  }
}

/**
 * The body as bytes, read as it streams and cut off (the connection cancelled) as soon as it passes `maxBytes`:
 * a misbehaving upstream's 300 MB reply never gets further than the cap.
 */
export async function readCappedBytes(res: Response, maxBytes: number): Promise<Uint8Array> {
  refuseDeclared(res, maxBytes);
  const parts: Uint8Array[] = [];
  if (res.body) for await (const part of capStream(res.body, maxBytes)) parts.push(part);
  return Buffer.concat(parts);
}

/**
 * The body as text: the bytes are gathered and decoded once (decoding piece by piece leaves a rope of thousands of
 * small strings behind, several times the reply's size, until the collector runs).
 */
export async function readCappedText(res: Response, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readCappedBytes(res, maxBytes));
}

/** The stream's chunks until `maxBytes` have passed; then the stream is cancelled and ResponseTooLargeError thrown. */
export async function* capStream(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new ResponseTooLargeError(maxBytes);
      }
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

import type http from "node:http";
import { isAppError } from "../errors/index.ts";
import { publicAddresses } from "./webhook-address.ts";

/** A delivery attempt that did not get a 2xx: the receiver's status when there was one, and whether retrying can help. */
export class DeliveryFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly permanent = false,
  ) {
    super(message);
  }
}

export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** the receiver's reply is read up to this many bytes, then the connection is dropped */
  maxResponseBytes: number;
  allowPrivate: boolean;
}

/**
 * POSTs one delivery. The host is resolved and every address checked first, and the connection goes to exactly
 * those addresses (the request's `lookup` answers with them), so a name that resolves elsewhere a moment later
 * (DNS rebinding) cannot redirect it. Redirects are not followed. The whole attempt — connect, send, response
 * head and body — is bounded by `timeoutMs`, and the reply by `maxResponseBytes`.
 */
export async function postWebhook(o: PostOptions): Promise<{ status: number }> {
  const url = new URL(o.url);
  let addresses: { address: string; family: number }[];
  try {
    addresses = await publicAddresses(url.hostname, o.allowPrivate);
  } catch (e) {
    const message = isAppError(e) ? e.message : String(e);
    // A name that does not resolve may come back; one that leads somewhere private is refused for good.
    throw new DeliveryFailure(message, null, /public address/.test(message));
  }
  // required on the first delivery: loading node:http(s) cost every start a few milliseconds before its first /health
  const client: typeof http = url.protocol === "https:" ? require("node:https") : require("node:http");
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: DeliveryFailure | null, status = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      if (err) reject(err);
      else resolve({ status });
    };
    const req = client.request(
      url,
      {
        method: "POST",
        headers: { ...o.headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(o.body)) },
        agent: false,
        lookup: (_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
          if (opts?.all) cb(null, addresses);
          else cb(null, addresses[0]?.address, addresses[0]?.family);
        },
      } as http.RequestOptions,
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.byteLength;
          // enough to know the receiver answered; the rest is not ours to hold
          if (read > o.maxResponseBytes) done();
        });
        const done = () => (status >= 200 && status < 300 ? finish(null, status) : finish(new DeliveryFailure(`HTTP ${status}`, status)));
        res.on("end", done);
        res.on("error", () => done());
      },
    );
    const timer = setTimeout(() => finish(new DeliveryFailure(`no answer within ${o.timeoutMs} ms`, null)), o.timeoutMs);
    req.on("error", (e: NodeJS.ErrnoException) => finish(new DeliveryFailure(e.code ? `${e.code} ${e.message}` : e.message, null)));
    req.end(o.body);
  });
}

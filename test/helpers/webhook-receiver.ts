/**
 * A real HTTP receiver of webhooks on 127.0.0.1 that verifies every delivery the way docs/webhooks.md tells a
 * receiver to (its own code, not docchat's): HMAC-SHA256 over `id.timestamp.body` with the base64 key after
 * `whsec_`, constant-time compare, timestamp within five minutes. It deduplicates by webhook-id, as receivers
 * should, and can be told to fail, hang or be down.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { freePort } from "./free-port.ts";

export interface Received {
  id: string;
  timestamp: number;
  signatureValid: boolean;
  type: string;
  data: Record<string, unknown>;
  body: string;
}

export function verifySignature(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
  return (
    fresh &&
    header.split(" ").some((part) => {
      const [version, sig] = part.split(",");
      const got = Buffer.from(sig ?? "", "base64");
      return version === "v1" && got.length === expected.length && timingSafeEqual(got, expected);
    })
  );
}

export interface Receiver {
  url: string;
  port: number;
  /** every attempt that reached it, in order (duplicates included) */
  attempts: Received[];
  /** first delivery per webhook-id */
  unique(): Map<string, Received>;
  /** what the next requests get: `ok` (204), a status code, `hang` (no answer), `huge` (an endless 200 body) */
  mode: "ok" | number | "hang" | "huge";
  secret: string;
  stop(): Promise<void>;
  /** stop listening (connections refused), then listen again on the same port */
  down(): void;
  up(): void;
}

export async function startReceiver(opts: { port?: number; secret?: string } = {}): Promise<Receiver> {
  const port = opts.port ?? (await freePort());
  let server: ReturnType<typeof Bun.serve> | null = null;
  const r: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    attempts: [],
    mode: "ok",
    secret: opts.secret ?? "",
    unique() {
      const m = new Map<string, Received>();
      for (const a of r.attempts) if (!m.has(a.id)) m.set(a.id, a);
      return m;
    },
    async stop() {
      server?.stop(true);
      server = null;
    },
    down() {
      server?.stop(true);
      server = null;
    },
    up() {
      server = listen();
    },
  };
  const listen = () =>
    Bun.serve({
      port,
      hostname: "127.0.0.1",
      idleTimeout: 30,
      async fetch(req) {
        const body = await req.text();
        const h = (n: string) => req.headers.get(n) ?? "";
        const parsed = JSON.parse(body) as { type: string; data: Record<string, unknown> };
        r.attempts.push({
          id: h("webhook-id"),
          timestamp: Number(h("webhook-timestamp")),
          signatureValid: verifySignature(r.secret, h("webhook-id"), h("webhook-timestamp"), body, h("webhook-signature")),
          type: parsed.type,
          data: parsed.data,
          body,
        });
        const mode = r.mode;
        if (mode === "hang") return new Promise<Response>(() => {});
        if (mode === "huge") {
          const chunk = new Uint8Array(64 * 1024).fill(120);
          return new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk) }), { status: 200 });
        }
        return new Response(null, { status: mode === "ok" ? 204 : mode });
      },
    });
  server = listen();
  return r;
}

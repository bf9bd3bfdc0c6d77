import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/**
 * Standard Webhooks signing: the secret is `whsec_` + base64 key bytes; the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`; the signature header is `v1,<base64 HMAC-SHA256>` (space-separated
 * when there are several, e.g. while a secret is rotated). Any Standard Webhooks library verifies these.
 */
export const SECRET_PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString("base64")}`;
}

/** A fresh idempotency id for an event that has no natural one (a test event). */
export const newEventId = (): string => `msg_${randomUUID().replaceAll("-", "")}`;

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
}

export function signWebhook(o: { secret: string; id: string; timestamp: number; body: string }): string {
  const mac = createHmac("sha256", keyOf(o.secret)).update(`${o.id}.${o.timestamp}.${o.body}`).digest("base64");
  return `v1,${mac}`;
}

/** The three headers of one delivery attempt (the timestamp is the attempt's, in seconds). */
export function webhookHeaders(o: { secret: string; id: string; timestamp: number; body: string }): Record<string, string> {
  return {
    "webhook-id": o.id,
    "webhook-timestamp": String(o.timestamp),
    "webhook-signature": signWebhook(o),
  };
}

/**
 * Verifies as a receiver would: one of the `v1,` signatures matches, and the timestamp is within `toleranceSeconds`
 * of now (replay protection). For docchat's own tests and tools; receivers use their own library or the snippet in
 * docs/webhooks.md.
 */
export function verifyWebhook(o: {
  secret: string;
  headers: { id: string; timestamp: string; signature: string };
  body: string;
  nowSeconds?: number;
  toleranceSeconds?: number;
}): boolean {
  const ts = Number(o.headers.timestamp);
  const now = o.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (!Number.isInteger(ts) || Math.abs(now - ts) > (o.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signWebhook({ secret: o.secret, id: o.headers.id, timestamp: ts, body: o.body }).slice(3), "base64");
  return o.headers.signature.split(" ").some((s) => {
    if (!s.startsWith("v1,")) return false;
    const got = Buffer.from(s.slice(3), "base64");
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

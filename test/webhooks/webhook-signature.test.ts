import { describe, expect, test } from "bun:test";
import { redact } from "../../src/log.ts";
import { checkWebhookUrl, isPublicAddress } from "../../src/webhooks/webhook-address.ts";
import { newWebhookSecret, signWebhook, verifyWebhook, webhookHeaders } from "../../src/webhooks/webhook-signature.ts";
import { verifySignature } from "../helpers/webhook-receiver.ts";

describe("Standard Webhooks signatures", () => {
  test("the published Standard Webhooks test vector is reproduced exactly", () => {
    const signature = signWebhook({
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  test("fresh secrets verify with the receiver's own code; a changed body, id, secret or stale timestamp does not", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const now = Math.floor(Date.now() / 1000);
    const body = '{"type":"lead.created","data":{}}';
    const h = webhookHeaders({ secret, id: "msg_1", timestamp: now, body });
    expect(
      verifySignature(secret, h["webhook-id"] as string, h["webhook-timestamp"] as string, body, h["webhook-signature"] as string),
    ).toBe(true);
    const headers = { id: "msg_1", timestamp: String(now), signature: h["webhook-signature"] as string };
    expect(verifyWebhook({ secret, headers, body })).toBe(true);
    expect(verifyWebhook({ secret, headers: { ...headers, signature: `v1,bm9wZQ== ${headers.signature}` }, body })).toBe(true);
    expect(verifyWebhook({ secret, headers, body: `${body} ` })).toBe(false);
    expect(verifyWebhook({ secret, headers: { ...headers, id: "msg_2" }, body })).toBe(false);
    expect(verifyWebhook({ secret: newWebhookSecret(), headers, body })).toBe(false);
    expect(verifyWebhook({ secret, headers, body, nowSeconds: now + 301 })).toBe(false);
  });
});

test("a webhook secret never reaches a log line", () => {
  const secret = newWebhookSecret();
  expect(redact(`endpoint saved with ${secret} for x`)).toBe("endpoint saved with whsec_[redacted] for x");
});

describe("webhook addresses", () => {
  test("loopback, private, link-local, CGNAT, multicast and unspecified addresses are not public; others are", () => {
    for (const a of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::",
    ])
      expect([a, isPublicAddress(a)]).toEqual([a, false]);
    for (const a of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "172.32.0.1"]) expect([a, isPublicAddress(a)]).toEqual([a, true]);
  });

  test("only absolute http(s) URLs without credentials are accepted; the fragment is dropped", () => {
    expect(checkWebhookUrl("https://hooks.example.com/in#x").toString()).toBe("https://hooks.example.com/in");
    for (const bad of ["ftp://x.example/", "javascript:alert(1)", "https://u:p@x.example/", "/relative", ""])
      expect(() => checkWebhookUrl(bad)).toThrow();
  });
});

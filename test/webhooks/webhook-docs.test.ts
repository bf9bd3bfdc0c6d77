/**
 * The verification snippets the README and docs/webhooks.md give receivers, run as written against a delivery
 * docchat signed: a receiver that copies them accepts docchat's signatures and refuses a tampered body.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { newWebhookSecret, webhookHeaders } from "../../src/webhooks/webhook-signature.ts";
import { tempDir } from "../helpers/server.ts";

const ROOT = join(import.meta.dir, "../..");
async function load(file: string, fn: string): Promise<(secret: string, headers: Record<string, string>, body: string) => boolean> {
  const src = (await Bun.file(join(ROOT, file)).text())
    .match(/```js\n([\s\S]*?)```/g)
    ?.map((b) => b.slice(6, -3))
    .find((b) => b.includes(fn));
  if (!src?.includes("timingSafeEqual")) throw new Error(`no js block defining ${fn} with a constant-time compare in ${file}`);
  const path = join(tempDir("docchat-snippet-"), "verify.mjs");
  writeFileSync(path, `${src.replace(/^export /m, "")}\nexport { ${fn} };\n`);
  return (await import(path))[fn];
}

for (const [file, fn] of [
  ["README.md", "verify"],
  ["docs/webhooks.md", "verifyDocchatWebhook"],
] as const) {
  test(`the snippet in ${file} verifies docchat's signature and refuses a tampered body`, async () => {
    const verify = await load(file, fn);
    const secret = newWebhookSecret();
    const body = '{"type":"lead.created","timestamp":"2026-03-01T09:30:00.000Z","data":{"deployment_id":"dep_x"}}';
    const headers = webhookHeaders({ secret, id: "msg_abc", timestamp: Math.floor(Date.now() / 1000), body });
    expect(verify(secret, headers, body)).toBe(true);
    expect(verify(secret, headers, body.replace("lead", "fake"))).toBe(false);
    expect(verify(newWebhookSecret(), headers, body)).toBe(false);
  });
}

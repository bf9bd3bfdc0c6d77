/**
 * The console's Integrations tab in Chromium: the MCP address and description agents read, a webhook endpoint
 * added and sent a test event that a real receiver verifies, the delivery in the log, and the conversation export
 * button downloading the chat logs of the chosen days.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

setDefaultTimeout(60_000);
const CHROMIUM = "/usr/bin/chromium";
const SHOTS = join(import.meta.dir, "../../.tmp/screenshots");
const EMAIL = "integrations@acme.example";
const PASSWORD = "correct horse battery staple";

let server: TestServer;
let receiver: Receiver;
let browser: Browser;
let page: Page;
let deploymentId: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  receiver = await startReceiver();
  server = await startTestServer({ DOCCHAT_WEBHOOK_ALLOW_PRIVATE: "true", DOCCHAT_WEBHOOK_POLL_MS: "50" });
  const account = await server.services.accounts.create({ email: EMAIL, password: PASSWORD, tokens: 1000 });
  deploymentId = (await server.services.deployments.create({ accountId: account.id, name: "Acme Help", published: true })).deployment.id;
  await insertChatLog(server.services, {
    deploymentId,
    conversationId: "conv-1",
    question: "Can I get a refund?",
    answer: "Within 30 days.",
  });
  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await ctx.newPage();
  await page.goto(`${server.url}/console/`);
  await page.fill('input[name="email"]', EMAIL);
  await page.fill('input[name="password"]', PASSWORD);
  await page.click('button[type="submit"]');
  await page.waitForSelector("text=Acme Help");
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.stop();
});

describe("the Integrations tab", () => {
  test("shows the MCP address and saves the description agents read", async () => {
    await page.goto(`${server.url}/console/#/deployments/${deploymentId}/integrations`);
    await page.waitForSelector('[data-testid="mcp-url"]');
    expect(await page.textContent('[data-testid="mcp-url"]')).toBe(`${server.url}/api/v1/mcp`);
    await page.fill('textarea[maxlength="2000"]', "Refunds and support hours.");
    await page.click("text=Save description");
    await page.waitForSelector("text=Description saved.");
    expect((await server.services.repos.deployments.findById(deploymentId))?.description).toBe("Refunds and support hours.");
  });

  test("adds a webhook endpoint, sends a test event the receiver verifies, and lists the delivery", async () => {
    await page.fill('input[type="url"]', receiver.url);
    await page.click("text=Add endpoint");
    await page.waitForSelector('[data-testid="webhook-endpoint"]');
    const [endpoint] = await server.services.webhooks.listEndpoints(deploymentId);
    receiver.secret = endpoint?.secret as string;
    await page.click("text=Send test event");
    await page.waitForSelector("text=Test event queued");
    for (let i = 0; i < 100 && receiver.attempts.length === 0; i++) await Bun.sleep(50);
    expect(receiver.attempts[0]?.type).toBe("webhook.test");
    expect(receiver.attempts[0]?.signatureValid).toBe(true);
    await page.reload();
    await page.waitForSelector('[data-testid="webhooks"] td:has-text("webhook.test")');
    await page.waitForSelector('[data-testid="webhooks"] .badge:has-text("Delivered")');
    await page.screenshot({ path: join(SHOTS, "integrations.png"), fullPage: true });
  });

  test("the export button downloads the chat logs as CSV", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click('[data-testid="export-chat-logs"]')]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^chat-logs-${deploymentId}-.*\\.csv$`));
    const text = await new Response(Bun.file((await download.path()) as string)).text();
    expect(text.split("\r\n")[0]).toStartWith("id,created_at,conversation_id");
    expect(text).toContain("Can I get a refund?");
  });
});

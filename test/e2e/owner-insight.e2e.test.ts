import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { harbourPdf } from "../helpers/harbour-pdf.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { hostPageServer } from "./host-page.ts";

/**
 * Issue 22 in headless Chromium: chat logs (filters, the conversation view, a correction and a test question from
 * there), the citation viewer at the cited PDF page with the passage highlighted, content gaps, test questions,
 * privacy settings and erasure; the widget opening a cited page. Every screen is checked with axe-core (no serious
 * or critical violation) and photographed into .tmp/screenshots/.
 */
const CHROMIUM = "/usr/bin/chromium";
setDefaultTimeout(90_000);
const SHOTS = join(import.meta.dir, "../../.tmp/screenshots");
const AXE = readFileSync(join(import.meta.dir, "../../node_modules/axe-core/axe.min.js"), "utf8");
const EMAIL = "insight@acme.example";
const PASSWORD = "correct horse battery staple";

let server: TestServer;
let host: ReturnType<typeof hostPageServer>;
let browser: Browser;
let owner: BrowserContext;
let page: Page;
let dep = "";
let key = "";
const errors: string[] = [];

const shot = (p: Page, name: string) => p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** axe-core run in the page (evaluated through the DevTools protocol, so the console's CSP does not block it). */
async function axe(p: Page, include?: string): Promise<string[]> {
  if (!(await p.evaluate(() => "axe" in window))) await p.evaluate(AXE);
  const found = (await p.evaluate(async (sel) => {
    const a = (
      window as unknown as {
        axe: { run(c: unknown, o: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> };
      }
    ).axe;
    const r = await a.run(sel ? { include: [[sel]] } : document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)).slice(0, 3) }));
  }, include ?? null)) as { id: string; impact: string; targets: string[] }[];
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(", ")}`);
}

async function ask(question: string, conversationId?: string): Promise<{ conversation_id: string; chat_log_id: number; refused: boolean }> {
  const r = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: dep, messages: [{ role: "user", content: question }], conversation_id: conversationId }),
  });
  return (await r.json()) as { conversation_id: string; chat_log_id: number; refused: boolean };
}

describe("owner insight in Chromium", () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: the browser tests cannot run.`);
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    const account = await server.services.accounts.create({ email: EMAIL, password: PASSWORD, tokens: 100_000 });
    const created = await server.services.deployments.create({ accountId: account.id, name: "Harbour", kind: "docs", published: true });
    dep = created.deployment.id;
    key = created.apiKey;
    await server.services.documents.push(
      { deploymentId: dep, name: "harbour.pdf", bytes: await harbourPdf(), train: true, replace: true },
      { waitMs: 30_000 },
    );
    // a few visitors: one answered with a citation, one refused who asks for a person, one rated 0
    const first = await ask("When was the lighthouse built?");
    await ask("Who built it?", first.conversation_id);
    const refused = await ask("Can I bring my dog on the ferry?");
    await fetch(`${server.url}/api/v1/widget/feedback`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ chat_log_id: refused.chat_log_id, feedback: 0 }),
    });
    for (const q of [
      "Are dogs allowed on the ferry?",
      "Can dogs travel on the ferry?",
      "Is parking free at the harbour?",
      "Where do I park at the harbour?",
    ])
      await ask(q);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    host = hostPageServer(server.url);
    host.setKey(key);
  });

  afterAll(async () => {
    await browser?.close();
    host?.stop();
    await server?.stop();
  });

  test("the owner signs in and reads the chat logs, filtered", async () => {
    await page.goto(`${server.url}/console/`);
    await page.fill('input[name="email"]', EMAIL);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForSelector("text=Harbour");
    await page.goto(`${server.url}/console/#/deployments/${dep}/chats`);
    await page.waitForSelector('[data-testid="conversations"]');
    expect(await page.locator("[data-conversation]").count()).toBe(6);
    await shot(page, "22-01-chat-logs");
    expect(await axe(page)).toEqual([]);
    await page.check('input[name="refused"]');
    await page.click("text=Filter");
    await page.waitForFunction(() => document.querySelectorAll("[data-conversation]").length === 5);
    await page.uncheck('input[name="refused"]');
    await page.fill('input[name="q"]', "lighthouse");
    await page.click("text=Filter");
    await page.waitForFunction(() => document.querySelectorAll("[data-conversation]").length === 1);
    await shot(page, "22-02-chat-logs-filtered");
  });

  test("a conversation shows each turn's search query and citations; the viewer opens the cited PDF page with the passage highlighted", async () => {
    await page.click("[data-conversation] a");
    await page.waitForSelector("article.turn");
    expect(await page.locator("article.turn").count()).toBe(2);
    expect(await page.locator(".search-query").count()).toBeGreaterThan(0);
    await shot(page, "22-03-conversation");
    expect(await axe(page)).toEqual([]);
    await page.locator("button.citation").first().click();
    await page.waitForSelector("dialog.viewer-dialog .pdf-page .textLayer span");
    await page.waitForFunction(() => Number(document.querySelector("dialog .viewer-box")?.getAttribute("data-highlighted") ?? 0) > 0);
    const pages = await page.locator("dialog .pdf-page").evaluateAll((els) => els.map((e) => e.getAttribute("data-page")));
    expect(pages).toContain("2");
    const highlighted = await page.locator("dialog .textLayer .hl").allTextContents();
    expect(highlighted.join(" ")).toContain("1871");
    await shot(page, "22-04-viewer-pdf-highlight");
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await page.waitForSelector("dialog.viewer-dialog", { state: "detached" });
  });

  test("from a turn the owner writes a correction and adds a test question", async () => {
    const turn = page.locator("article.turn").first();
    await turn.locator("text=Add to test questions").click();
    await turn.locator(".turn-action input[type=text]").fill("1871");
    await turn.locator("text=Add test question").click();
    await page.waitForSelector("text=Added to test questions");
    await turn.locator("text=Write a correction").click();
    await turn.locator(".turn-action textarea").fill("The lighthouse dates from 1871.");
    await turn.locator("text=Save correction").click();
    await page.waitForSelector("text=Correction saved");
    await page.waitForSelector("article.turn >> text=Corrected");
    await shot(page, "22-05-conversation-corrected");
  });

  test("test questions run and show pass or fail", async () => {
    await page.goto(`${server.url}/console/#/deployments/${dep}/tests`);
    await page.waitForSelector('[data-testid="tests"]');
    await page.fill('input[placeholder^="e.g. When"]', "Can I bring my dog on the ferry?");
    await page.selectOption("form.card select", "refuse");
    await page.click("text=Add test question >> nth=-1");
    await page.waitForSelector("text=Test question added");
    await page.waitForFunction(() => document.querySelectorAll("[data-test]").length === 2);
    await page.click("button:has-text('Run now')");
    await page.waitForSelector("text=Run finished");
    await page.waitForSelector('[data-testid="run-summary"]');
    expect(await page.locator('[data-passed="true"]').count()).toBe(2);
    await shot(page, "22-06-test-questions");
    expect(await axe(page)).toEqual([]);
  });

  test("content gaps group what was refused, with actions", async () => {
    await page.goto(`${server.url}/console/#/deployments/${dep}/gaps`);
    await page.waitForSelector("article.gap-group");
    const first = await page.locator("article.gap-group").first().getAttribute("data-terms");
    expect(first?.split(" ")).toContain("dog");
    await shot(page, "22-07-content-gaps");
    expect(await axe(page)).toEqual([]);
  });

  test("privacy settings and erasure of one visitor", async () => {
    await page.goto(`${server.url}/console/#/deployments/${dep}`);
    await page.waitForSelector('[data-testid="policy"]');
    await page.fill('[data-testid="policy"] input[type=number]', "30");
    await page.selectOption('[data-testid="policy"] select', "page");
    await page.click("text=Save privacy settings");
    await page.waitForSelector("text=Privacy settings saved");
    expect(await server.services.privacy.policy(dep)).toMatchObject({ retentionDays: 30, widgetCitations: "page" });
    await shot(page, "22-08-settings-privacy");
    expect(await axe(page)).toEqual([]);
    await page.goto(`${server.url}/console/#/account`);
    await page.waitForSelector('[data-testid="erasure"]');
    const conv = (await ask("Is parking free at the harbour?")).conversation_id;
    await page.fill('[data-testid="erasure"] input[placeholder="conv-…"]', conv);
    page.once("dialog", (d) => void d.accept());
    await page.click('[data-testid="erasure"] button[type=submit]');
    await page.waitForSelector('[data-testid="erasures"]');
    expect(await server.services.repos.conversationLogs.conversation(dep, conv)).toEqual([]);
    await shot(page, "22-09-account-erasure");
    expect(await axe(page)).toEqual([]);
  });

  test("every other console page has no serious or critical accessibility violation", async () => {
    const pages: [string, string][] = [
      ["#/deployments", ".cards"],
      [`#/deployments/${dep}/documents`, "table"],
      [`#/deployments/${dep}/key`, ".card"],
      [`#/deployments/${dep}/corrections`, ".card"],
      [`#/deployments/${dep}/leads`, ".card"],
      [`#/deployments/${dep}/reports`, ".chart, .card"],
    ];
    for (const [hash, ready] of pages) {
      await page.goto(`${server.url}/console/${hash}`);
      await page.waitForSelector(`main:not([aria-busy]) ${ready.split(",")[0]}`);
      expect({ hash, violations: await axe(page) }).toEqual({ hash, violations: [] });
    }
    await shot(page, "22-12-reports");
    const signIn = await browser.newPage();
    await signIn.goto(`${server.url}/console/`);
    await signIn.waitForSelector("form.signin-card");
    expect(await axe(signIn)).toEqual([]);
    await signIn.close();
  });

  test("the widget opens the cited page by its link, and Escape closes the panel", async () => {
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const w = await visitor.newPage();
    await w.goto(host.url);
    await w.waitForFunction(() => !!document.getElementById("docchat-widget")?.shadowRoot?.querySelector(".launcher"));
    const inShadow = (sel: string) => `#docchat-widget >> ${sel}`;
    await w.click(inShadow(".launcher"));
    // (the owner corrected "When was the lighthouse built?" above: a correction cites nothing)
    await w.fill(inShadow("textarea"), "Who built the lighthouse in 1871?");
    await w.click(inShadow("button.send"));
    await w.waitForSelector(inShadow("a.source"));
    expect(await axe(w, "#docchat-widget")).toEqual([]);
    await shot(w, "22-10-widget-citation");
    const [cite] = await Promise.all([visitor.waitForEvent("page"), w.click(inShadow("a.source"))]);
    await cite.waitForSelector(".pdf-page .textLayer .hl");
    expect((await cite.locator(".textLayer .hl").allTextContents()).join(" ")).toContain("1871");
    await shot(cite, "22-11-visitor-cited-page");
    expect(await axe(cite)).toEqual([]);
    await w.press(inShadow("textarea"), "Escape");
    await w.waitForFunction(() => document.getElementById("docchat-widget")?.shadowRoot?.querySelector(".panel")?.hasAttribute("hidden"));
    await visitor.close();
    expect(errors).toEqual([]);
  });
});

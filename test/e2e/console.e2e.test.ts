import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { normaliseQuestion } from "../../src/visitor/normalise-question.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { hostPageServer } from "./host-page.ts";

/**
 * The owner console and the widget in headless Chromium: sign in, create a deployment, upload and train a
 * document, copy the key; a visitor on another origin asks, gets a streamed answer with sources, gets a
 * refusal and leaves a lead, rates an answer 0; the owner corrects it; the visitor then gets the correction.
 * XSS payloads ride along in the document, a question, a lead and the correction. Screenshots of every
 * page land in .tmp/screenshots/.
 */
// Never skipped: without Chromium these tests fail (`bun run test` installs it first, see scripts/test.ts).
const CHROMIUM = "/usr/bin/chromium";

setDefaultTimeout(60_000);
const SHOTS = join(import.meta.dir, "../../.tmp/screenshots");
const EMAIL = "owner@acme.example";
const PASSWORD = "correct horse battery staple";
const DOC_NAME = "acme-hours <img src=x onerror=window.__xss=3>";
const DOC_TEXT = [
  "Acme Bikes opening hours",
  "",
  `Our shop in Berlin is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 14:00. <img src=x onerror="window.__xss=1"> On Sundays the shop is closed.`,
  "",
  "Repairs take two working days. <script>window.__xss=2</script> We repair all bike brands.",
].join("\n");
const QUESTION = "What are the opening hours of the shop?";
const XSS_QUESTION = "<b onmouseover=alert(4)>How do I bake sourdough bread?</b>";
const CORRECTION = `<img src=x onerror="window.__xss=7">We are open 8:00 to 20:00 every weekday.`;

let server: TestServer;
let host: { url: string; setKey(k: string): void; stop(): void };
let browser: Browser;
let owner: BrowserContext;
let visitor: BrowserContext;
let consolePage: Page;
let widgetPage: Page;
const cspViolations: string[] = [];
const pageErrors: string[] = [];
const state = { key: "", deploymentId: "" };

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

function watch(page: Page): void {
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
}

/** Whether two elements' boxes overlap on screen (a message must never cover what the owner reads). */
async function overlap(page: Page, a: string, b: string): Promise<boolean> {
  const [x, y] = [await page.locator(a).first().boundingBox(), await page.locator(b).first().boundingBox()];
  if (!x || !y) throw new Error(`not visible: ${!x ? a : b}`);
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
}

/** The widget's shadow root, read from the host page. */
const shadowCount = (page: Page, selector: string) =>
  page.evaluate((sel) => document.getElementById("docchat-widget")?.shadowRoot?.querySelectorAll(sel).length ?? -1, selector);
const xssFired = (page: Page) => page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss ?? null);

test("Chromium is installed for the browser tests (bun run test installs it; or apt-get install chromium)", () => {
  expect(existsSync(CHROMIUM)).toBe(true);
});

describe("owner console and widget in Chromium", () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} not found: the browser tests cannot run (apt-get install chromium, or bun run test as root).`);
    mkdirSync(SHOTS, { recursive: true });
    const { chromium } = await import("playwright-core");
    server = await startTestServer();
    await server.services.accounts.create({ email: EMAIL, password: PASSWORD, tokens: 50_000 });
    host = hostPageServer(server.url);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    owner = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await owner.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    visitor = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    consolePage = await owner.newPage();
    watch(consolePage);
  });

  afterAll(async () => {
    await browser?.close();
    host?.stop();
    await server?.stop();
  });

  test("the owner signs in", async () => {
    await consolePage.goto(`${server.url}/console/`);
    await consolePage.waitForSelector("form.signin-card");
    await shot(consolePage, "01-sign-in");
    await consolePage.fill('input[name="email"]', EMAIL);
    await consolePage.fill('input[name="password"]', "wrong password");
    await consolePage.click('button[type="submit"]');
    await expect(consolePage.locator(".alert-error").textContent()).resolves.toContain("email or password is incorrect");
    await shot(consolePage, "01b-sign-in-error");
    await consolePage.fill('input[name="password"]', PASSWORD);
    await consolePage.click('button[type="submit"]');
    await consolePage.waitForSelector("text=No deployments yet");
    await shot(consolePage, "02-deployments-empty");
  });

  test("creates a deployment and copies its key, shown once", async () => {
    await consolePage.fill('input[name="name"]', "Acme Bikes <i>help</i>");
    await consolePage.click("text=Create deployment");
    await consolePage.waitForSelector('[data-testid="api-key"] input');
    state.key = await consolePage.inputValue('[data-testid="api-key"] input');
    expect(state.key).toMatch(/^dck_[0-9A-Za-z]{32}$/);
    await consolePage.click('[data-testid="api-key"] button');
    await consolePage.waitForSelector('[data-testid="api-key"] button:has-text("Copied")');
    expect(await consolePage.evaluate(() => navigator.clipboard.readText())).toBe(state.key);
    await shot(consolePage, "03-key-shown-once");
    const d = (await server.services.repos.deployments.list())[0];
    state.deploymentId = d?.id ?? "";
    expect(d?.name).toBe("Acme Bikes <i>help</i>");
    expect(await consolePage.locator("i").count()).toBe(0);
  });

  test("uploads a document and watches training reach Completed", async () => {
    await consolePage.click("text=Continue: upload documents");
    await consolePage.waitForSelector('[data-testid="dropzone"]');
    await consolePage.setInputFiles('input[type="file"]', {
      name: `${DOC_NAME}.txt`,
      mimeType: "text/plain",
      buffer: Buffer.from(DOC_TEXT),
    });
    await consolePage.waitForSelector('tr[data-status="completed"]', { timeout: 30_000 });
    await consolePage.waitForSelector(".training-line >> text=Completed");
    expect(await consolePage.locator(".doc-name").first().textContent()).toBe(`${DOC_NAME}.txt`);
    // Once training finished, the upload's message says so — not "training started".
    await consolePage.waitForSelector(`.alert-success:has-text("uploaded and trained")`);
    expect(await consolePage.locator(".alert", { hasText: /training started|training…/ }).count()).toBe(0);
    // Drag and drop: a CSV is accepted, a PNG is refused with the server's message.
    const drop = (name: string, type: string, content: string) =>
      consolePage.evaluate(
        ([n, t, c]) => {
          const dt = new DataTransfer();
          dt.items.add(new File([c as string], n as string, { type: t as string }));
          document
            .querySelector('[data-testid="dropzone"]')
            ?.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        },
        [name, type, content],
      );
    await drop("prices.csv", "text/csv", "item,price\nCity bike service,49 EUR\nTyre change,15 EUR\n");
    await consolePage.waitForSelector("tr:has-text('prices.csv')[data-status='completed']", { timeout: 30_000 });
    await drop("photo.png", "image/png", "\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR");
    await consolePage.waitForSelector(".alert-error:has-text('photo.png')");
    expect(await consolePage.locator(".alert-error").textContent()).toContain("Upload PDF, DOCX, TXT or CSV");
    await shot(consolePage, "04-documents");
  });

  test("publishes the deployment, turns handoff on and adds a starter question", async () => {
    await consolePage.click('.tabs a:has-text("Settings")');
    await consolePage.waitForSelector("text=Save settings");
    // The settings explain that the widget key is public, next to what it may do with documents.
    expect(await consolePage.textContent('[data-testid="key-is-public"]')).toContain("The API key is public");
    await consolePage.check('label.check:has-text("Published") input');
    await consolePage.check('label.check:has-text("Offer handoff") input');
    await consolePage.fill('.field:has-text("Starter questions") textarea', QUESTION);
    await consolePage.click("text=+ Add Q&A pair");
    // Each Q&A input has a visible label of its own, not just a placeholder.
    const labels = await consolePage.evaluate(() =>
      [...document.querySelectorAll(".qa-row input, .qa-row textarea")].map((e) =>
        [...((e as HTMLInputElement).labels ?? [])].map((l) => l.textContent?.trim()),
      ),
    );
    expect(labels).toEqual([["Question"], ["Answer"]]);
    await consolePage.fill(".qa-row input", "Do you sell e-bikes?");
    await consolePage.fill(".qa-row textarea", "Yes, from three brands.");
    await consolePage.click("text=Save settings");
    await consolePage.waitForSelector("text=Settings saved.");
    await consolePage.waitForSelector(".page-head >> text=Published");
    await shot(consolePage, "05-settings");
    const d = await server.services.repos.deployments.findById(state.deploymentId);
    expect(d).toMatchObject({ published: true, handoffEnabled: true, starterQuestions: [QUESTION] });
  });

  test("a visitor on another site asks and gets a streamed answer with sources", async () => {
    host.setKey(state.key);
    widgetPage = await visitor.newPage();
    watch(widgetPage);
    await widgetPage.goto(host.url);
    await widgetPage.waitForSelector(".launcher");
    await shot(widgetPage, "06-widget-closed");
    await widgetPage.click(".launcher");
    await widgetPage.waitForSelector(".panel:not([hidden])");
    expect(await widgetPage.locator(".head .title").textContent()).toBe("Acme Bikes <i>help</i>");
    await shot(widgetPage, "07-widget-open");
    const streamed = widgetPage.waitForResponse((r) => r.url().includes("/api/v1/chat/completions?") && r.request().method() === "GET");
    await widgetPage.click(`.chip:has-text("${QUESTION}")`);
    const res = await streamed;
    expect(res.url()).toContain("stream=true");
    expect(res.headers()["content-type"]).toContain("text/event-stream");
    await widgetPage.waitForSelector(".msg.bot:not(.streaming) .sources");
    const answer = widgetPage.locator(".msg.bot").last();
    expect(await answer.locator(".text").textContent()).toMatch(/9:00 to 18:00|10:00 to 14:00/);
    expect(await answer.locator(".source").allTextContents()).toEqual([DOC_NAME]);
    expect(await shadowCount(widgetPage, "img, script:not([src]), b")).toBe(0);
    await shot(widgetPage, "08-widget-answer");
  });

  test("the visitor rates the answer not helpful", async () => {
    await widgetPage.locator(".msg.bot").last().locator('button[aria-label="Not helpful"]').click();
    await widgetPage.waitForSelector("text=the owner will review this answer");
  });

  test("an unrelated question is refused and the handoff form records a lead", async () => {
    await widgetPage.fill(".compose textarea", XSS_QUESTION);
    await widgetPage.press(".compose textarea", "Enter");
    await widgetPage.waitForSelector(".handoff");
    const refused = widgetPage.locator(".msg.bot").last();
    expect(await refused.locator(".text").textContent()).toContain("couldn't find an answer");
    expect(await widgetPage.locator(".msg.user").last().textContent()).toBe(XSS_QUESTION);
    await widgetPage.fill('.handoff input[name="email"]', "visitor@example.com");
    await widgetPage.fill('.handoff input[name="name"]', "Vera Visitor");
    await widgetPage.fill('.handoff textarea[name="message"]', "<script>window.__xss=6</script>Please call me back.");
    await widgetPage.click('.handoff button[type="submit"]');
    await widgetPage.waitForSelector(".handoff-done");
    // mail is off on this server: nobody will email the visitor, and the widget does not say so
    const done = (await widgetPage.locator(".handoff-done").textContent()) ?? "";
    expect(done).not.toContain("will email you");
    expect(done).toContain("passed on to the team");
    await shot(widgetPage, "09-widget-handoff");
    expect(await shadowCount(widgetPage, "b, img")).toBe(0);
    const leads = await server.services.leads.list(state.deploymentId);
    expect(leads.map((l) => [l.email, l.refusedQuestion])).toEqual([["visitor@example.com", XSS_QUESTION]]);
  });

  test("the owner writes a correction on the corrections screen", async () => {
    await consolePage.click('.tabs a:has-text("Corrections")');
    await consolePage.waitForSelector(".correction");
    expect(await consolePage.locator(".correction .question-text").first().textContent()).toBe(QUESTION);
    expect(await consolePage.locator(".correction .chip").first().textContent()).toBe(DOC_NAME);
    await shot(consolePage, "10-corrections-open");
    await consolePage.fill('.correction textarea[aria-label="Replacement answer"]', CORRECTION);
    await consolePage.click("text=Save correction");
    await consolePage.waitForSelector("text=Corrected · served 0×");
    expect(await consolePage.locator(".correction textarea").first().inputValue()).toBe(CORRECTION);
  });

  test("the widget then receives the correction, inert, in the same conversation", async () => {
    const asked = widgetPage.waitForRequest((r) => r.url().includes("/api/v1/chat/completions?"));
    await widgetPage.fill(".compose textarea", QUESTION);
    await widgetPage.press(".compose textarea", "Enter");
    const url = new URL((await asked).url());
    expect(url.searchParams.get("conversation_id")).toMatch(/^conv-/);
    await widgetPage.waitForFunction(
      (text) =>
        [...(document.getElementById("docchat-widget")?.shadowRoot?.querySelectorAll(".msg.bot:not(.streaming) .text") ?? [])].some(
          (e) => e.textContent === text,
        ),
      CORRECTION,
    );
    expect(await shadowCount(widgetPage, "img")).toBe(0);
    await shot(widgetPage, "11-widget-correction");
    await consolePage.reload();
    await consolePage.waitForSelector("text=Corrected · served 1×");
    await shot(consolePage, "12-corrections-served");
  });

  test("the owner takes the correction out of service and back, with a message that covers nothing", async () => {
    const active = async () => await server.services.repos.corrections.findActive(state.deploymentId, normaliseQuestion(QUESTION));
    await consolePage.click('.table td.state-cell button:has-text("Take out of service")');
    await consolePage.waitForSelector(".toast:has-text('Correction taken out of service')");
    await consolePage.waitForSelector(".table td.state-cell:has-text('Not in service')");
    expect(await active()).toBeNull();
    expect(await overlap(consolePage, ".toast", ".table")).toBe(false);
    await shot(consolePage, "12b-correction-out-of-service");
    await consolePage.click('.table td.state-cell button:has-text("Put back in service")');
    await consolePage.waitForSelector(".toast:has-text('Correction back in service')");
    await consolePage.waitForSelector(".table td.state-cell:has-text('In service')");
    expect((await active())?.answer).toBe(CORRECTION);
    // The open item offers the same switch.
    expect(await consolePage.locator('.correction button:has-text("Take out of service")').count()).toBe(1);
  });

  test("leads, reports, key and account pages render, with visitor text as text", async () => {
    await consolePage.click('.tabs a:has-text("Leads")');
    await consolePage.waitForSelector(".lead-email");
    expect(await consolePage.locator(".lead-email").textContent()).toBe("visitor@example.com");
    // Squeezed to its narrowest, the address breaks only before "@" or ".", never inside a word.
    const lineStarts = await consolePage.evaluate(() => {
      const span = document.querySelector(".lead-email") as HTMLElement;
      (span.closest("td") as HTMLElement).style.width = "1px";
      const starts: string[] = [];
      let lastTop: number | null = null;
      const walker = document.createTreeWalker(span, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (let i = 0; i < (n.textContent ?? "").length; i++) {
          const r = document.createRange();
          r.setStart(n, i);
          r.setEnd(n, i + 1);
          const top = Math.round(r.getBoundingClientRect().top);
          if (lastTop !== null && top > lastTop) starts.push(n.textContent?.[i] ?? "");
          lastTop = top;
        }
      }
      (span.closest("td") as HTMLElement).style.width = "";
      return starts;
    });
    expect(lineStarts.length).toBeGreaterThan(0);
    for (const c of lineStarts) expect(["@", "."]).toContain(c);
    expect(await consolePage.locator("td", { hasText: "How do I bake sourdough bread?" }).first().textContent()).toBe(XSS_QUESTION);
    expect(await consolePage.locator('a:has-text("Export CSV")').getAttribute("href")).toBe(
      `/owner/api/deployments/${state.deploymentId}/leads.csv`,
    );
    await shot(consolePage, "13-leads");

    await consolePage.click('.tabs a:has-text("Reports")');
    await consolePage.waitForSelector("svg.chart");
    expect(await consolePage.locator(".top-list").last().textContent()).toContain(XSS_QUESTION);
    await shot(consolePage, "14-reports");

    await consolePage.click('.tabs a:has-text("Key")');
    await consolePage.waitForSelector('[data-testid="key-prefix"]');
    expect(await consolePage.content()).not.toContain(state.key);
    await shot(consolePage, "15-key");

    // A long token history: the password form stays near the top and the history comes a page at a time.
    const account = (await server.services.repos.accounts.findByEmail(EMAIL))!;
    for (let i = 0; i < 45; i++) await server.services.repos.accounts.debit(account.id, 1, null);
    await consolePage.click('.topnav a:has-text("Account")');
    await consolePage.waitForSelector('[data-testid="balance"]');
    const form = await consolePage.locator('form:has-text("Change password")').boundingBox();
    const ledger = await consolePage.locator('[data-testid="ledger"]').boundingBox();
    expect(form!.y).toBeLessThan(ledger!.y);
    expect(form!.y + form!.height).toBeLessThan(860 * 1.5);
    expect(await consolePage.locator('[data-testid="ledger"] tbody tr').count()).toBe(20);
    await consolePage.click('[data-testid="ledger-more"]');
    expect(await consolePage.locator('[data-testid="ledger"] tbody tr').count()).toBe(40);
    await shot(consolePage, "16-account");

    await consolePage.click('.topnav a:has-text("Deployments")');
    await consolePage.waitForSelector(".deployment-card");
    await shot(consolePage, "17-deployments");
    expect(await consolePage.locator("b, i, img").count()).toBe(0);
  });

  test("console and widget work at phone width", async () => {
    await consolePage.setViewportSize({ width: 390, height: 844 });
    await consolePage.goto(`${server.url}/console/#/deployments/${state.deploymentId}/documents`);
    await consolePage.waitForSelector('tr[data-status="completed"]');
    expect(await consolePage.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await shot(consolePage, "18-phone-documents");
    await consolePage.goto(`${server.url}/console/#/deployments/${state.deploymentId}/corrections`);
    await consolePage.waitForSelector(".correction");
    await shot(consolePage, "19-phone-corrections");
    await widgetPage.setViewportSize({ width: 390, height: 844 });
    await shot(widgetPage, "20-phone-widget");
  });

  test("disabling a key clears the once-shown key panel", async () => {
    await consolePage.setViewportSize({ width: 1280, height: 860 });
    await consolePage.goto(`${server.url}/console/#/deployments/${state.deploymentId}/key`);
    await consolePage.waitForSelector('[data-testid="key-prefix"]');
    consolePage.once("dialog", (d) => void d.accept());
    await consolePage.click('button:has-text("Regenerate key")');
    await consolePage.waitForSelector('[data-testid="api-key"] input');
    const fresh = await consolePage.inputValue('[data-testid="api-key"] input');
    await consolePage.click('button:has-text("Disable key")');
    await consolePage.waitForSelector("text=Key disabled");
    expect(await consolePage.locator('[data-testid="api-key"]').count()).toBe(0);
    expect(await consolePage.locator("text=Copy it now").count()).toBe(0);
    expect(await consolePage.content()).not.toContain(fresh);
    await shot(consolePage, "21-key-disabled");
  });

  test("no payload ran and the CSP was never violated", async () => {
    expect(await xssFired(consolePage)).toBeNull();
    expect(await xssFired(widgetPage)).toBeNull();
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

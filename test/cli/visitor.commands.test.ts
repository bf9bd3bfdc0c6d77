import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Services } from "../../src/app.ts";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { type HandoffShop, seedHandoffShop } from "../helpers/handoff-shop.ts";
import { runCliProcess } from "../helpers/server.ts";

let shop: HandoffShop;
let s: Services;
let deploymentId: string;
let env: Record<string, string>;

beforeAll(async () => {
  shop = await seedHandoffShop({ env: { DOCCHAT_EMBEDDER: "none" }, owner: "cli-owner@example.com", name: "CLI Shop" });
  ({ s, deploymentId } = shop);
  env = { DOCCHAT_DATA: shop.dir, DOCCHAT_EMBEDDER: "none" };
});
afterAll(() => shop.close());

const cli = async (...args: string[]) => {
  const r = await runCliProcess(args, env);
  return { ...r, json: r.stdout.trim().startsWith("{") ? JSON.parse(r.stdout) : null };
};

describe("docchat corrections", () => {
  test("list shows answers rated 0, and set writes a correction that is then served for the question", async () => {
    const log = await insertChatLog(s, { deploymentId, question: "Do you deliver on Sundays?", answer: "Unclear.", sources: ["delivery"] });
    await s.feedback.rate(deploymentId, log.id, 0);
    const listed = await cli("corrections", "list", deploymentId, "--json");
    expect(listed.code).toBe(0);
    expect(listed.json.items).toEqual([
      expect.objectContaining({
        chat_log_id: log.id,
        question: "Do you deliver on Sundays?",
        answer: "Unclear.",
        sources: ["delivery"],
        correction: null,
      }),
    ]);

    const set = await cli("corrections", "set", String(log.id), "--answer", "No, Monday to Saturday only.", "--json");
    expect(set.code).toBe(0);
    expect(set.json.correction).toMatchObject({ chat_log_id: log.id, answer: "No, Monday to Saturday only.", active: true });
    expect((await s.corrections.findFor(deploymentId, "do you deliver on sundays"))?.answer).toBe("No, Monday to Saturday only.");

    const again = await cli("corrections", "list", deploymentId, "--json");
    expect(again.json.items[0].correction).toMatchObject({ answer: "No, Monday to Saturday only.", served_count: 1 });
  });

  test("set without --answer or with a malformed id is a usage error, and an unknown id fails", async () => {
    expect((await cli("corrections", "set", "12", "--json")).code).toBe(2);
    expect((await cli("corrections", "set", "abc", "--answer", "x", "--json")).code).toBe(2);
    const missing = await cli("corrections", "set", "99999999", "--answer", "x", "--json");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("not_found");
  });
});

/** A refused question, and the lead its visitor left through handoff. */
async function refusedWithLead(question: string, visitor: { email: string; name: string; message?: string }): Promise<void> {
  const refused = await insertChatLog(s, { deploymentId, refused: true, question });
  const deployment = await s.deployments.getOrThrow(deploymentId);
  await s.leads.handoff({ deployment, ownerEmail: "cli-owner@example.com", ...visitor, conversationId: refused.conversationId });
}

describe("docchat leads list", () => {
  test("prints the leads with their mail status as one JSON object", async () => {
    await refusedWithLead("Can I book a fitting?", { email: "lead@example.org", name: "Lea" });
    const r = await cli("leads", "list", deploymentId, "--json");
    expect(r.code).toBe(0);
    expect(r.json.mail_enabled).toBe(false);
    expect(r.json.leads).toEqual([
      expect.objectContaining({
        email: "lead@example.org",
        name: "Lea",
        refused_question: "Can I book a fitting?",
        mail_status: "pending",
      }),
    ]);
  });

  test("--csv exports spreadsheet-safe CSV: formula-looking visitor text is prefixed with an apostrophe", async () => {
    await refusedWithLead("=1+1", { email: "csv@example.org", name: '=HYPERLINK("http://evil")', message: "@SUM(A1)" });
    const r = await cli("leads", "list", deploymentId, "--csv");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\r\n");
    expect(lines[0]).toBe("id,created_at,email,name,message,refused_question,conversation_id,mail_status");
    const row = lines.find((l) => l.includes("csv@example.org")) as string;
    expect(row).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(row).toContain(",'@SUM(A1),'=1+1,");
    const asJson = await cli("leads", "list", deploymentId, "--csv", "--json");
    expect(asJson.json.csv).toBe(r.stdout);
  });
});

import { expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { configFor, createServices } from "../../src/app.ts";
import { cliJson, tempDir } from "../helpers/server.ts";

setDefaultTimeout(60_000);

test("docchat visitor erase removes one visitor's chat logs and leads everywhere and prints the record; the policy command sets retention", async () => {
  const data = tempDir("docchat-erase-");
  try {
    const s = await createServices(configFor(data));
    const a = await s.accounts.create({ email: "owner@example.com", tokens: 10 });
    const { deployment } = await s.deployments.create({ accountId: a.id, name: "D", kind: "docs", published: true });
    const base = {
      deploymentId: deployment.id,
      accountId: a.id,
      completionId: "c",
      endpoint: "v1",
      searchQuery: "q",
      answer: "a",
      sources: [],
    };
    const t = { ...base, promptTokens: 0, completionTokens: 0, refused: false, correctionId: null };
    await s.repos.chatLogs.record({ ...t, conversationId: "conv-1", question: "mine", visitorEmail: "me@example.com" });
    await s.repos.chatLogs.record({ ...t, conversationId: "conv-2", question: "theirs", visitorEmail: null });
    await s.close();
    const out = (await cliJson(["visitor", "erase", "--email", "ME@example.com"], { data })) as {
      erasures: { chat_logs: number; via: string }[];
    };
    expect(out.erasures).toMatchObject([{ chat_logs: 1, via: "cli" }]);
    const policy = await cliJson(["deployment", "policy", deployment.id, "--retention-days", "30", "--widget-citations", "page"], { data });
    expect(policy).toMatchObject({ retention_days: 30, transcripts: true, widget_citations: "page" });
    const again = await createServices(configFor(data));
    expect(await again.repos.conversationLogs.conversation(deployment.id, "conv-1")).toEqual([]);
    expect((await again.repos.conversationLogs.conversation(deployment.id, "conv-2")).length).toBe(1);
    await again.close();
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
});

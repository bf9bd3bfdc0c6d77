/**
 * The MCP server over Streamable HTTP, driven by the official SDK client against a real server on port 0, on
 * both engines: three read-only tools with schemas, citations from search/fetch/ask, the structured refusal at
 * zero tokens, the debit of an answer, and each gate refusal as a clear error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { STORE_ENGINES, stopSharedCluster } from "../helpers/stores.ts";
import { connectHttp, MCP_PATH, startMcpWorld, structured, toolErrorCode } from "./mcp-kit.ts";

afterAll(stopSharedCluster);

type Search = {
  query: string;
  grounded: boolean;
  results: { id: string; title: string; text: string; score: number; citation: Record<string, unknown> }[];
};
type Ask = {
  status: string;
  answer: string | null;
  refusal: { reason: string; message: string } | null;
  sources: string[];
  citations: { id: string; citation: { document: string } }[];
  conversation_id: string;
  chat_log_id: number;
  usage: { total_tokens: number };
};

for (const engine of STORE_ENGINES) {
  describe(`MCP over Streamable HTTP (${engine})`, () => {
    let world: Awaited<ReturnType<typeof startMcpWorld>>;
    let client: Client;
    beforeAll(async () => {
      world = await startMcpWorld(engine);
      client = await connectHttp(world.server, world.apiKey);
    }, 60_000);
    afterAll(async () => {
      await client?.close();
      await world?.server.stop();
    });

    test("the server names the deployment in its instructions and lists three read-only tools with input and output schemas", async () => {
      await world.server.services.repos.deployments.update(world.deploymentId, { description: "Acme Cloud refunds, support and plans." });
      const fresh = await connectHttp(world.server, world.apiKey);
      expect(fresh.getInstructions()).toContain("Test deployment: Acme Cloud refunds, support and plans.");
      const { tools } = await fresh.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["ask", "fetch", "search"]);
      for (const t of tools) {
        expect(t.annotations?.readOnlyHint).toBe(true);
        expect(t.inputSchema.type).toBe("object");
        expect(t.outputSchema?.type).toBe("object");
      }
      const ask = tools.find((t) => t.name === "ask");
      expect(ask?.inputSchema.required).toEqual(["question"]);
      expect(Object.keys(ask?.inputSchema.properties ?? {}).sort()).toEqual(["conversation_id", "question"]);
      expect(Object.keys(tools.find((t) => t.name === "search")?.inputSchema.properties ?? {}).sort()).toEqual(["limit", "query"]);
      await fresh.close();
    });

    test("search returns ranked passages with ids, documents, citations and scores, free of charge", async () => {
      const before = (await world.server.services.repos.accounts.findById(world.accountId))?.tokens;
      const r = structured<Search>(await client.callTool({ name: "search", arguments: { query: "refund annual plan" } }));
      expect(r.grounded).toBe(true);
      expect(r.results.length).toBeGreaterThan(0);
      const top = r.results[0];
      expect(top?.title).toBe("acme-handbook");
      expect(top?.citation).toMatchObject({ document: "acme-handbook" });
      expect(top?.text).toContain("refunded in full within 30 days");
      expect(r.results.map((x) => x.score)).toEqual([...r.results.map((x) => x.score)].sort((a, b) => b - a));
      expect((await world.server.services.repos.accounts.findById(world.accountId))?.tokens).toBe(before as number);
    });

    test("fetch returns the passage with its neighbours in document order and its citation; an unknown id is a tool error", async () => {
      const s = structured<Search>(await client.callTool({ name: "search", arguments: { query: "support desk hours", limit: 1 } }));
      const id = s.results[0]?.id as string;
      const f = structured<{ id: string; text: string; citation: { document: string }; passages: { id: string; requested: boolean }[] }>(
        await client.callTool({ name: "fetch", arguments: { id, neighbours: 1 } }),
      );
      expect(f.id).toBe(id);
      expect(f.citation.document).toBe("acme-handbook");
      expect(f.passages.filter((p) => p.requested).map((p) => p.id)).toEqual([id]);
      expect(f.text).toContain("support desk is open");
      expect(toolErrorCode(await client.callTool({ name: "fetch", arguments: { id: "999999999" } }))).toBe("not_found");
      expect(toolErrorCode(await client.callTool({ name: "fetch", arguments: { id: "../1" } }))).toBe("not_found");
    });

    test("ask answers with sources and citations and debits exactly its usage, like a chat answer", async () => {
      const before = (await world.server.services.repos.accounts.findById(world.accountId))?.tokens as number;
      const a = structured<Ask>(await client.callTool({ name: "ask", arguments: { question: "Can annual plans be refunded?" } }));
      expect(a.status).toBe("answered");
      expect(a.answer).toContain("30 days");
      expect(a.refusal).toBeNull();
      expect(a.sources).toEqual(["acme-handbook"]);
      expect(a.citations.length).toBeGreaterThan(0);
      expect(a.citations[0]?.citation.document).toBe("acme-handbook");
      expect(a.usage.total_tokens).toBeGreaterThan(0);
      const after = (await world.server.services.repos.accounts.findById(world.accountId))?.tokens as number;
      expect(before - after).toBe(a.usage.total_tokens);
      const log = await world.server.services.repos.ownerChatLogs.find(world.deploymentId, a.chat_log_id);
      expect(log?.answer).toBe(a.answer as string);
      // a follow-up in the same conversation
      const f = structured<Ask>(
        await client.callTool({ name: "ask", arguments: { question: "And monthly plans?", conversation_id: a.conversation_id } }),
      );
      expect(f.conversation_id).toBe(a.conversation_id);
    });

    test("a question the documents cannot answer is a structured refusal at zero tokens", async () => {
      const before = (await world.server.services.repos.accounts.findById(world.accountId))?.tokens as number;
      const a = structured<Ask>(await client.callTool({ name: "ask", arguments: { question: "Who won the 1998 football world cup?" } }));
      expect(a).toMatchObject({ status: "refused", answer: null, sources: [], citations: [], usage: { total_tokens: 0 } });
      expect(a.refusal?.reason).toBe("not_in_documents");
      expect((await world.server.services.repos.accounts.findById(world.accountId))?.tokens).toBe(before);
    });
  });
}

describe("MCP gate refusals over Streamable HTTP", () => {
  let world: Awaited<ReturnType<typeof startMcpWorld>>;
  beforeAll(async () => {
    world = await startMcpWorld("sqlite");
  }, 60_000);
  afterAll(() => world?.server.stop());

  /** The SDK client's error when connecting fails: the HTTP status and the JSON-RPC error it carried. */
  const connectError = async (apiKey: string, headers: Record<string, string> = {}) => {
    const e = (await connectHttp(world.server, apiKey, headers).then(
      () => null,
      (err: unknown) => err,
    )) as { code?: number; message: string } | null;
    if (!e) throw new Error("connect succeeded");
    return e;
  };

  test("a wrong or disabled key is a 401 with the bad_key code", async () => {
    const wrong = await connectError("dck_wrongwrongwrongwrongwrongwrong");
    expect(wrong.code).toBe(401);
    expect(wrong.message).toContain('"code":"bad_key"');
    await world.server.services.repos.keys.setDisabled(world.deploymentId, true);
    const disabled = await connectError(world.apiKey);
    expect(disabled.code).toBe(401);
    expect(disabled.message).toContain('"code":"bad_key"');
    await world.server.services.repos.keys.setDisabled(world.deploymentId, false);
  });

  test("an unpublished deployment is a 401 with not_published; a blocked address a 403 with ip_restricted", async () => {
    await world.server.services.repos.deployments.update(world.deploymentId, { published: false });
    const e = await connectError(world.apiKey);
    expect([e.code, e.message.includes('"code":"not_published"')]).toEqual([401, true]);
    await world.server.services.repos.deployments.update(world.deploymentId, { published: true, ipAllow: ["203.0.113.0/24"] });
    const blocked = await connectError(world.apiKey);
    expect([blocked.code, blocked.message.includes('"code":"ip_restricted"')]).toEqual([403, true]);
    await world.server.services.repos.deployments.update(world.deploymentId, { ipAllow: [] });
  });

  test("an exhausted balance makes ask a no_tokens tool error, while a refusal and search still work", async () => {
    const client = await connectHttp(world.server, world.apiKey);
    const tokens = (await world.server.services.repos.accounts.findById(world.accountId))?.tokens as number;
    await world.server.services.repos.accounts.debit(world.accountId, tokens, null);
    expect(toolErrorCode(await client.callTool({ name: "ask", arguments: { question: "Can annual plans be refunded?" } }))).toBe(
      "no_tokens",
    );
    const refused = structured<Ask>(await client.callTool({ name: "ask", arguments: { question: "Who painted the Mona Lisa?" } }));
    expect(refused.status).toBe("refused");
    expect(structured<Search>(await client.callTool({ name: "search", arguments: { query: "refund" } })).results.length).toBeGreaterThan(0);
    await client.close();
  });

  test("GET and DELETE answer 405 with Allow: POST (no sessions), and a Private GPT offers no tools", async () => {
    for (const method of ["GET", "DELETE"]) {
      const r = await fetch(`${world.server.url}${MCP_PATH}`, { method, headers: { authorization: `Bearer ${world.apiKey}` } });
      expect([r.status, r.headers.get("allow")]).toEqual([405, "POST"]);
      expect(((await r.json()) as { error: { data: { code: string } } }).error.data.code).toBe("method_not_allowed");
    }
    const gpt = await world.server.seed({ kind: "private_gpt" });
    const e = (await connectHttp(world.server, gpt.apiKey).catch((err: unknown) => err)) as { code: number; message: string };
    expect([e.code, e.message.includes('"code":"sources_unsupported"')]).toEqual([400, true]);
  });

  test("past the rate limit a request is a 429 with rate_limited and retry_after, and carries the limit headers", async () => {
    let last: Response | null = null;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    for (let i = 0; i < 61 && last?.status !== 429; i++) {
      last = await fetch(`${world.server.url}${MCP_PATH}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${world.apiKey}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body,
      });
      if (last.status !== 429) await last.body?.cancel();
    }
    expect(last?.status).toBe(429);
    expect(last?.headers.get("x-ratelimit-remaining")).toBe("0");
    const err = (await last?.json()) as { jsonrpc: string; error: { code: number; data: { code: string; retry_after: number } } };
    expect(err.jsonrpc).toBe("2.0");
    expect(err.error.code).toBe(429);
    expect(err.error.data.code).toBe("rate_limited");
    expect(err.error.data.retry_after).toBeGreaterThan(0);
    const e = await connectError(world.apiKey);
    expect(e.code).toBe(429);
  });
});

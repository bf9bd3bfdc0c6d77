import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { appError, isAppError } from "../errors/index.ts";
import type { Logger } from "../log.ts";
import type { AccountsStore, DeploymentsStore, KeyContext, KeysStore } from "../store/contract/index.ts";
import { jsonRpcError } from "./mcp-errors.ts";
import { createMcpServer } from "./mcp-server.ts";
import type { McpCaller, McpTools } from "./mcp-tools.ts";

/** A local client counts as this address: the deployment's IP allow-list must let loopback in. */
export const STDIO_CLIENT_IP = "127.0.0.1";

/** The deployment's key, deployment and account as the gate judges them (null: no such deployment or no key). */
export async function localKeyContext(
  repos: { keys: KeysStore; deployments: DeploymentsStore; accounts: AccountsStore },
  deploymentId: string,
): Promise<KeyContext | null> {
  const deployment = await repos.deployments.findById(deploymentId);
  const key = deployment ? await repos.keys.findForDeployment(deploymentId) : null;
  const account = deployment && key ? await repos.accounts.findById(deployment.accountId) : null;
  return deployment && key && account ? { key, deployment, account } : null;
}

/**
 * A transport that asks `judge` about every request before the server sees it, in arrival order; a refusal is
 * answered at once as a JSON-RPC error for that request. Notifications pass, in their place in the order.
 */
export function gatedTransport(inner: Transport, judge: () => Promise<void>): Transport {
  let queue: Promise<void> = Promise.resolve();
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
  };
  const handle = async (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message)) {
      try {
        await judge();
      } catch (e) {
        const error = isAppError(e) ? e : appError("internal_error");
        await inner.send({ jsonrpc: "2.0", id: message.id, error: jsonRpcError(error) });
        return;
      }
    }
    outer.onmessage?.(message);
  };
  inner.onmessage = (message) => {
    queue = queue.then(() => handle(message)).catch((e: unknown) => outer.onerror?.(e as Error));
  };
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (e) => outer.onerror?.(e);
  return outer;
}

/**
 * `docchat mcp --deployment ID`: the deployment's MCP server over stdin/stdout for desktop clients that launch a
 * local command. Every request passes the same gate as over HTTP (key enabled, published, allow-list, rate limit),
 * judged afresh so a key disabled meanwhile is refused. Resolves when the client closes stdin.
 */
export async function serveMcpStdio(o: {
  deploymentId: string;
  context: () => Promise<KeyContext | null>;
  judge: (context: KeyContext | null) => Promise<McpCaller>;
  tools: McpTools;
  version: string;
  log: Logger;
  stdin?: Readable;
  stdout?: Writable;
}): Promise<void> {
  const first = await o.context();
  if (!first) throw appError("not_found", { param: "deployment", message: `No deployment ${o.deploymentId} with an API key.` });
  let caller: McpCaller = first;
  const server = createMcpServer({ tools: o.tools, version: o.version, caller: () => caller, log: o.log });
  const stdin: Readable = o.stdin ?? process.stdin;
  const closed = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
  });
  const inner = new StdioServerTransport(stdin, o.stdout ?? process.stdout);
  await server.connect(
    gatedTransport(inner, async () => {
      caller = await o.judge(await o.context());
    }),
  );
  await closed;
  await server.close();
}

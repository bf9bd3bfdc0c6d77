import { rmSync } from "node:fs";
import { join } from "node:path";
import { configFor, createServices, type Services } from "../../src/app.ts";
import { insertChatLog } from "./chat-logs.ts";
import { startServeProcess } from "./serve-process.ts";
import { tempDir } from "./server.ts";

/** The real `docchat serve` in a child process, so it can be killed with SIGKILL. */
export const spawnServe = (dataDir: string, env: Record<string, string>) =>
  startServeProcess({ command: [process.execPath, join(import.meta.dir, "../../src/main.ts")], dataDir, env });

export interface HandoffShop {
  /** its data dir (a temp dir) */
  dir: string;
  s: Services;
  key: string;
  deploymentId: string;
  /** Closes the services and removes the data dir. */
  close(): Promise<void>;
}

/**
 * A data dir (a new temp dir) with an owner and a published deployment that takes handoffs, opened in this process,
 * which only seeds and reads the database: the workers run in the served child processes (or the CLI's).
 */
export async function seedHandoffShop(opts: { env: Record<string, string>; owner: string; name: string }): Promise<HandoffShop> {
  const { owner, name } = opts;
  const dir = tempDir();
  const s = await createServices(configFor(dir, opts.env));
  const account = await s.accounts.create({ email: owner });
  const created = await s.deployments.create({ accountId: account.id, name, published: true });
  await s.deployments.update(created.deployment.id, { handoffEnabled: true });
  return {
    dir,
    s,
    key: created.apiKey,
    deploymentId: created.deployment.id,
    async close() {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A refused question in the shop (written here, as the widget would have logged it); its conversation id. */
export async function refusedQuestion(shop: HandoffShop, question: string): Promise<string> {
  return (await insertChatLog(shop.s, { deploymentId: shop.deploymentId, refused: true, question })).conversationId;
}

/** The visitor of that conversation leaves an email through the widget's handoff, on the server at `url`. */
export function widgetHandoff(shop: HandoffShop, to: { url: string; conversationId: string; email: string }): Promise<Response> {
  return fetch(`${to.url}/api/v1/widget/handoff`, {
    method: "POST",
    headers: { authorization: `Bearer ${shop.key}`, "content-type": "application/json" },
    body: JSON.stringify({ email: to.email, conversation_id: to.conversationId }),
  });
}

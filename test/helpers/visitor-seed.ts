/**
 * Accounts, deployments and chat turns for the contract suites of the visitor and owner repos, written through the
 * store contract so each suite runs the same on both engines.
 */
import { randomBytes } from "node:crypto";
import type { NewTurn, Store } from "../../src/store/contract/index.ts";

export const uniq = (prefix: string): string => `${prefix}-${randomBytes(5).toString("hex")}`;

export async function seedAccount(store: Store, tokens = 1000) {
  return store.repos.accounts.create({ email: `${uniq("owner")}@example.com`, passwordHash: null, tokens });
}

export async function seedDeployment(store: Store, accountId: number): Promise<string> {
  const id = uniq("dep");
  await store.repos.deployments.create({ id, accountId, name: id, kind: "docs", published: true });
  return id;
}

/** An account with `tokens` and one deployment of it. */
export async function seedOwner(store: Store, tokens = 1000): Promise<{ accountId: number; deploymentId: string }> {
  const account = await seedAccount(store, tokens);
  return { accountId: account.id, deploymentId: await seedDeployment(store, account.id) };
}

export const turn = (o: Pick<NewTurn, "deploymentId" | "accountId"> & Partial<NewTurn>): NewTurn => ({
  conversationId: uniq("conv"),
  completionId: uniq("chatcmpl"),
  endpoint: "v1",
  question: "Can I get a refund?",
  searchQuery: "refund",
  answer: "Yes, within 30 days.",
  sources: ["policy.pdf"],
  citations: [],
  promptTokens: 0,
  completionTokens: 0,
  refused: false,
  correctionId: null,
  visitorEmail: null,
  ...o,
});

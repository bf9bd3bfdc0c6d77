import type { Account } from "./accounts.contract.ts";
import type { Deployment } from "./deployments.contract.ts";
import { type FlagCell, flag, type IntCell, num } from "./row-values.ts";

/** A deployment's API key as it may be shown: never the key, only its display prefix (the key is stored hashed). */
export interface KeyInfo {
  deploymentId: string;
  displayPrefix: string;
  disabled: boolean;
  createdAt: number;
}

/** What a gated request needs from its key: the key, its deployment and the owner account. */
export interface KeyContext {
  key: KeyInfo;
  deployment: Deployment;
  account: Account;
}

export interface KeyRow {
  deployment_id: string;
  display_prefix: string;
  disabled: FlagCell;
  created_at: IntCell;
}

export const toKeyInfo = (r: KeyRow): KeyInfo => ({
  deploymentId: r.deployment_id,
  displayPrefix: r.display_prefix,
  disabled: flag(r.disabled),
  createdAt: num(r.created_at),
});

export interface KeysStore {
  /** Replaces any key of the deployment (regenerate = delete old + create new) in one transaction. */
  put(deploymentId: string, keyHash: string, displayPrefix: string): Promise<KeyInfo>;
  findForDeployment(deploymentId: string): Promise<KeyInfo | null>;
  /** Whether the deployment had a key. */
  setDisabled(deploymentId: string, disabled: boolean): Promise<boolean>;
  /**
   * Key hash → key, deployment and owner account; runs on every gated request, so drivers cache it. A change to a
   * key, a deployment or an account made through ANY node (or the CLI) is seen within a second; the same node sees
   * its own at once. The result is shared: callers treat it as read-only.
   */
  resolve(keyHash: string): Promise<KeyContext | null>;
  /**
   * What `resolve` would answer, when this node can say so at once from what it holds (its cache, known to be
   * current); undefined when it must ask the database (then call `resolve`). Lets the gate answer a request
   * without waiting: a request that waits for nothing stays on the HTTP server's fast path.
   */
  peek(keyHash: string): KeyContext | null | undefined;
}

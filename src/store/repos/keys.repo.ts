import type { Db } from "../db.ts";
import { type Account, createAccountsRepo } from "./accounts.repo.ts";
import { type Deployment, type DeploymentRow, toDeployment } from "./deployments.repo.ts";

export interface KeyInfo {
  deploymentId: string;
  displayPrefix: string;
  disabled: boolean;
  createdAt: number;
}

export interface KeyContext {
  key: KeyInfo;
  deployment: Deployment;
  account: Account;
}

interface JoinedRow extends DeploymentRow {
  key_prefix: string;
  key_disabled: number;
  key_created_at: number;
}

export function createKeysRepo(db: Db) {
  const accounts = createAccountsRepo(db);
  const byHash = db.query<JoinedRow, [string]>(
    `SELECT d.*, k.display_prefix AS key_prefix, k.disabled AS key_disabled, k.created_at AS key_created_at
       FROM api_keys k JOIN deployments d ON d.id = k.deployment_id WHERE k.key_hash = ?`,
  );
  return {
    /** Replaces any key of the deployment (regenerate = delete old + create new) in one transaction. */
    put(deploymentId: string, keyHash: string, displayPrefix: string): KeyInfo {
      const at = Date.now();
      db.transaction(() => {
        db.run("DELETE FROM api_keys WHERE deployment_id = ?", [deploymentId]);
        db.run("INSERT INTO api_keys (deployment_id, key_hash, display_prefix, created_at) VALUES (?, ?, ?, ?)", [deploymentId, keyHash, displayPrefix, at]);
      }).immediate();
      return { deploymentId, displayPrefix, disabled: false, createdAt: at };
    },
    findForDeployment(deploymentId: string): KeyInfo | null {
      const r = db
        .query<{ display_prefix: string; disabled: number; created_at: number }, [string]>(
          "SELECT display_prefix, disabled, created_at FROM api_keys WHERE deployment_id = ?",
        )
        .get(deploymentId);
      return r ? { deploymentId, displayPrefix: r.display_prefix, disabled: r.disabled === 1, createdAt: r.created_at } : null;
    },
    setDisabled(deploymentId: string, disabled: boolean): boolean {
      return db.run("UPDATE api_keys SET disabled = ? WHERE deployment_id = ?", [disabled ? 1 : 0, deploymentId]).changes > 0;
    },
    /** One indexed lookup by hash → key, deployment and owner account. */
    resolve(keyHash: string): KeyContext | null {
      const r = byHash.get(keyHash);
      if (!r) return null;
      const account = accounts.findById(r.account_id);
      if (!account) return null;
      return {
        key: { deploymentId: r.id, displayPrefix: r.key_prefix, disabled: r.key_disabled === 1, createdAt: r.key_created_at },
        deployment: toDeployment(r),
        account,
      };
    },
  };
}

export type KeysRepo = ReturnType<typeof createKeysRepo>;

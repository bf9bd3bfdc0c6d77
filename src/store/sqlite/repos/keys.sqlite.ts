import type { Db } from "../db.ts";
import { type Account, createAccountsRepo } from "./accounts.sqlite.ts";
import { type Deployment, type DeploymentRow, toDeployment } from "./deployments.sqlite.ts";

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

const MAX_CACHED_KEYS = 10_000;

export function createKeysRepo(db: Db) {
  const accounts = createAccountsRepo(db);
  // Two indexed lookups instead of one JOIN: bun:sqlite runs the JOIN form ~10x slower (measured ~25 µs vs
  // ~2 µs per call), and this runs on every gated request (BENCHMARKS.md, "HTTP throughput").
  const keyByHash = db.query<{ deployment_id: string; key_prefix: string; key_disabled: number; key_created_at: number }, [string]>(
    "SELECT deployment_id, display_prefix AS key_prefix, disabled AS key_disabled, created_at AS key_created_at FROM api_keys WHERE key_hash = ?",
  );
  const deploymentById = db.query<DeploymentRow, [string]>("SELECT * FROM deployments WHERE id = ?");
  // Every gated request resolves its key, so the rows are cached for as long as the database is unchanged:
  // total_changes() counts this connection's writes and PRAGMA data_version every other connection's (the CLI,
  // another process). A CLI change is therefore still seen on the server's next request.
  const version = db.query<{ c: number; v: number }, []>(
    "SELECT total_changes() AS c, (SELECT data_version FROM pragma_data_version) AS v",
  );
  const cache = new Map<string, KeyContext | null>();
  let stamp = "";
  const byHash = {
    get(keyHash: string): JoinedRow | null {
      const k = keyByHash.get(keyHash);
      if (!k) return null;
      const d = deploymentById.get(k.deployment_id);
      return d ? { ...d, key_prefix: k.key_prefix, key_disabled: k.key_disabled, key_created_at: k.key_created_at } : null;
    },
  };
  return {
    /** Replaces any key of the deployment (regenerate = delete old + create new) in one transaction. */
    put(deploymentId: string, keyHash: string, displayPrefix: string): KeyInfo {
      const at = Date.now();
      db.transaction(() => {
        db.run("DELETE FROM api_keys WHERE deployment_id = ?", [deploymentId]);
        db.run("INSERT INTO api_keys (deployment_id, key_hash, display_prefix, created_at) VALUES (?, ?, ?, ?)", [
          deploymentId,
          keyHash,
          displayPrefix,
          at,
        ]);
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
    /**
     * Key hash → key, deployment and owner account. The result is cached until the database changes (in
     * this process or another), so callers must treat it as read-only.
     */
    resolve(keyHash: string): KeyContext | null {
      const v = version.get();
      const current = `${v?.c}:${v?.v}`;
      if (current !== stamp) {
        cache.clear();
        stamp = current;
      }
      let hit = cache.get(keyHash);
      if (hit === undefined) {
        const r = byHash.get(keyHash);
        const account = r ? accounts.findById(r.account_id) : null;
        hit =
          r && account
            ? {
                key: { deploymentId: r.id, displayPrefix: r.key_prefix, disabled: r.key_disabled === 1, createdAt: r.key_created_at },
                deployment: toDeployment(r),
                account,
              }
            : null;
        if (cache.size >= MAX_CACHED_KEYS) cache.clear();
        cache.set(keyHash, hit);
      }
      return hit;
    },
  };
}

export type KeysRepo = ReturnType<typeof createKeysRepo>;

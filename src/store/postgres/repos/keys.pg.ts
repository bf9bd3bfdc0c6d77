import type { SQL } from "bun";
import { type AccountRow, toAccount } from "../../contract/accounts.contract.ts";
import { type DeploymentRow, toDeployment } from "../../contract/deployments.contract.ts";
import { type KeyContext, type KeyRow, type KeysStore, toKeyInfo } from "../../contract/keys.contract.ts";
import { first } from "./values.ts";

/** Migration 002's triggers notify this channel whenever api_keys, deployments or accounts change. */
export const KEYS_CHANNEL = "docchat_keys";
/** The safety net: the change counter is re-read at most this often (a notification lost without a reconnect). */
export const VERSION_CHECK_MS = 500;
const MAX_CACHED_KEYS = 10_000;

export interface PgKeysStore extends KeysStore {
  /**
   * Clears this node's cache at once: called after this node's own writes to keys, deployments or accounts commit,
   * so the node's next request sees them without waiting for the notification's round trip.
   */
  invalidate(): void;
  /** Stops listening for changes (the store's close). */
  close(): Promise<void>;
}

/**
 * API keys on PostgreSQL. `resolve` runs on every gated request, so
 * resolved keys are cached per node; a key disabled, a deployment unpublished or an IP list changed on ANY node
 * (or by the CLI) must be enforced everywhere within a second. So:
 * - this node's own writes clear the cache as soon as they commit (invalidate());
 * - every change to api_keys, deployments or accounts sends NOTIFY docchat_keys at commit (migration 002's
 *   triggers) and the whole cache is cleared when it arrives, and again whenever the LISTEN connection is
 *   (re)established (notifications sent while it was down are lost);
 * - until the LISTEN is acknowledged nothing is cached;
 * - a lookup that was in flight when the cache was cleared is not cached (it may have read the old rows);
 * - as a safety net the change counter (sequence key_cache_version, bumped by the same triggers) is re-read at
 *   most every 500 ms and the cache cleared when it moved.
 */
export async function createPgKeysRepo(sql: SQL): Promise<PgKeysStore> {
  const cache = new Map<string, KeyContext | null>();
  /** bumped by every clear: a lookup started in an older epoch is not cached */
  let epoch = 0;
  let listening = false;
  let version: string | null = null;
  let checkedAt = 0;
  let checking: Promise<void> | null = null;

  const clear = () => {
    cache.clear();
    epoch++;
  };
  const readVersion = async () => {
    const r = await first<{ v: string; is_called: boolean }>(sql`SELECT last_value::text AS v, is_called FROM key_cache_version`);
    return `${r?.v}:${r?.is_called}`;
  };
  const checkVersion = async () => {
    const v = await readVersion();
    if (v !== version) {
      clear();
      version = v;
    }
    checkedAt = Date.now();
  };

  version = await readVersion();
  checkedAt = Date.now();
  const subscription = await sql.listen(
    KEYS_CHANNEL,
    () => clear(),
    () => {
      clear();
      listening = true;
    },
  );

  /** One round trip: the key, its deployment (d.*) and the owner account, the latter two's clashing columns aliased. */
  async function lookup(keyHash: string): Promise<KeyContext | null> {
    const r = await first<DeploymentRow & { key: KeyRow; account: AccountRow }>(sql`SELECT d.*,
        json_build_object('deployment_id', k.deployment_id, 'display_prefix', k.display_prefix, 'disabled', k.disabled,
          'created_at', k.created_at) AS key,
        json_build_object('id', a.id, 'email', a.email, 'tokens', a.tokens, 'disabled', a.disabled, 'created_at', a.created_at) AS account
      FROM api_keys k JOIN deployments d ON d.id = k.deployment_id JOIN accounts a ON a.id = d.account_id
      WHERE k.key_hash = ${keyHash}`);
    return r ? { key: toKeyInfo(r.key), deployment: toDeployment(r), account: toAccount(r.account) } : null;
  }

  return {
    /** Replaces any key of the deployment (regenerate = delete old + create new) in one transaction. */
    async put(deploymentId, keyHash, displayPrefix) {
      const at = Date.now();
      await sql.begin(async (tx) => {
        await tx`DELETE FROM api_keys WHERE deployment_id = ${deploymentId}`;
        await tx`INSERT INTO api_keys (deployment_id, key_hash, display_prefix, created_at) VALUES (${deploymentId}, ${keyHash}, ${displayPrefix}, ${at})`;
      });
      clear();
      return { deploymentId, displayPrefix, disabled: false, createdAt: at };
    },
    async findForDeployment(deploymentId) {
      const r = await first<KeyRow>(
        sql`SELECT deployment_id, display_prefix, disabled, created_at FROM api_keys WHERE deployment_id = ${deploymentId}`,
      );
      return r ? toKeyInfo(r) : null;
    },
    async setDisabled(deploymentId, disabled) {
      const res = await sql`UPDATE api_keys SET disabled = ${disabled ? 1 : 0} WHERE deployment_id = ${deploymentId}`;
      clear();
      return res.count > 0;
    },
    /** Key hash → key, deployment and owner account; cached (read-only for callers) until any node changes them. */
    async resolve(keyHash) {
      if (Date.now() - checkedAt >= VERSION_CHECK_MS) {
        checking ??= checkVersion().finally(() => {
          checking = null;
        });
        await checking;
      }
      if (listening) {
        const hit = cache.get(keyHash);
        if (hit !== undefined) return hit;
      }
      const started = epoch;
      const found = await lookup(keyHash);
      if (listening && started === epoch) {
        if (cache.size >= MAX_CACHED_KEYS) cache.clear();
        cache.set(keyHash, found);
      }
      return found;
    },
    /** The cached answer while the cache is trusted (listening, change counter checked within 500 ms). */
    peek(keyHash) {
      return listening && Date.now() - checkedAt < VERSION_CHECK_MS ? cache.get(keyHash) : undefined;
    },
    invalidate: clear,
    async close() {
      listening = false;
      clear();
      await subscription.unlisten();
    },
  };
}

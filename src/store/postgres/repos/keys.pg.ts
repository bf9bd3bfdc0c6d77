import type { SQL } from "bun";
import type { Account } from "../../sqlite/repos/accounts.sqlite.ts";
import { toDeployment } from "../../sqlite/repos/deployments.sqlite.ts";
import type { KeyContext, KeyInfo } from "../../sqlite/repos/keys.sqlite.ts";
import type { KeysStore } from "../../contract/store.contract.ts";
import { pgDeploymentRow } from "./deployments.pg.ts";
import { flag, type Raw } from "./values.ts";

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
 * API keys on PostgreSQL (the SQLite twin is repos/keys.repo.ts). `resolve` runs on every gated request, so
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
    const r = ((await sql`SELECT last_value::text AS v, is_called FROM key_cache_version`) as Raw[])[0];
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

  async function lookup(keyHash: string): Promise<KeyContext | null> {
    const r = (
      (await sql`SELECT d.*, k.display_prefix AS key_prefix, k.disabled AS key_disabled, k.created_at AS key_created_at,
          a.email AS account_email, a.tokens AS account_tokens, a.disabled AS account_disabled, a.created_at AS account_created_at
        FROM api_keys k JOIN deployments d ON d.id = k.deployment_id JOIN accounts a ON a.id = d.account_id
        WHERE k.key_hash = ${keyHash}`) as Raw[]
    )[0];
    if (!r) return null;
    const account: Account = {
      id: Number(r.account_id),
      email: r.account_email as string,
      tokens: Number(r.account_tokens),
      disabled: flag(r.account_disabled),
      createdAt: Number(r.account_created_at),
    };
    return {
      key: {
        deploymentId: r.id as string,
        displayPrefix: r.key_prefix as string,
        disabled: flag(r.key_disabled),
        createdAt: Number(r.key_created_at),
      },
      deployment: toDeployment(pgDeploymentRow(r)),
      account,
    };
  }

  return {
    /** Replaces any key of the deployment (regenerate = delete old + create new) in one transaction. */
    async put(deploymentId, keyHash, displayPrefix): Promise<KeyInfo> {
      const at = Date.now();
      await sql.begin(async (tx) => {
        await tx`DELETE FROM api_keys WHERE deployment_id = ${deploymentId}`;
        await tx`INSERT INTO api_keys (deployment_id, key_hash, display_prefix, created_at) VALUES (${deploymentId}, ${keyHash}, ${displayPrefix}, ${at})`;
      });
      clear();
      return { deploymentId, displayPrefix, disabled: false, createdAt: at };
    },
    async findForDeployment(deploymentId) {
      const r = ((await sql`SELECT display_prefix, disabled, created_at FROM api_keys WHERE deployment_id = ${deploymentId}`) as Raw[])[0];
      return r
        ? { deploymentId, displayPrefix: r.display_prefix as string, disabled: r.disabled === 1, createdAt: Number(r.created_at) }
        : null;
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
    invalidate: clear,
    async close() {
      listening = false;
      clear();
      await subscription.unlisten();
    },
  };
}

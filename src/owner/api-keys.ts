import { randomBytes } from "node:crypto";

const KEY_PREFIX = "dck_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** 32 base62 characters from a CSPRNG ≈ 190 bits; rejection sampling keeps every character uniform. */
export function generateApiKey(): string {
  let out = "";
  while (out.length < 32) {
    for (const b of randomBytes(48)) {
      if (b < 248 && out.length < 32) out += ALPHABET[b % 62];
    }
  }
  return KEY_PREFIX + out;
}

/** SHA-256 in hex: what the store keeps and looks keys up by (one-shot: it runs on every gated request). */
export function hashApiKey(key: string): string {
  return Bun.SHA256.hash(key, "hex");
}

/**
 * hashApiKey for the gate, remembering the keys it has hashed: the same few keys arrive on every gated request,
 * and the hash cost more than the rest of the key's lookup. The memory is bounded (forgotten when full), so made-up
 * keys cost at most `max` entries. Null for anything not shaped like a key, which is never looked up.
 */
export function createKeyHasher(max = 1024): (key: string) => string | null {
  const hashes = new Map<string, string>();
  return (key) => {
    let hash = hashes.get(key);
    if (hash !== undefined) return hash;
    if (!looksLikeApiKey(key)) return null;
    hash = hashApiKey(key);
    if (hashes.size >= max) hashes.clear();
    hashes.set(key, hash);
    return hash;
  };
}

/** The non-secret part shown to owners afterwards, e.g. "dck_a1B2c3…". */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 6);
}

/** Cheap shape check so garbage never costs a database lookup. */
export function looksLikeApiKey(key: string): boolean {
  return key.length >= 8 && key.length <= 200 && /^[\x21-\x7e]+$/.test(key);
}

import { expect, test } from "bun:test";
import { createKeyHasher, generateApiKey, hashApiKey } from "../../src/owner/api-keys.ts";

test("the gate's key hasher gives each key its stored hash, again from memory, and nothing for what is no key's shape", () => {
  const hash = createKeyHasher(2);
  const keys = [generateApiKey(), generateApiKey(), generateApiKey()];
  for (const k of [...keys, ...keys]) expect(hash(k)).toBe(hashApiKey(k));
  expect(hash("short")).toBeNull();
  expect(hash("dck_with space inside the key")).toBeNull();
  expect(hash("x".repeat(201))).toBeNull();
});

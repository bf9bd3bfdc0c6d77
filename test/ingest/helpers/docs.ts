import { expect } from "bun:test";
import { join } from "node:path";
import { type ErrorCode, isAppError } from "../../../src/errors/index.ts";
import type { ParseOptions } from "../../../src/ingest/types.ts";

/** Real third-party files, referenced by path only (never copied into the repo). */
export const SHARED_DOCS = join(import.meta.dir, "../../..", "../shared/data/docs");
export const FIXTURE_DOCS = join(import.meta.dir, "../../fixtures/docs");

export const TEST_PARSE_OPTIONS: ParseOptions = { maxPages: 500, maxInflatedBytes: 64 * 1024 * 1024 };

export async function sharedDoc(path: string): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(join(SHARED_DOCS, path)).arrayBuffer());
}

export async function fixtureDoc(name: string): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(join(FIXTURE_DOCS, name)).arrayBuffer());
}

/** Awaits `run` and asserts it failed with an AppError carrying `code`. */
export async function expectAppError(run: Promise<unknown> | (() => unknown), code: ErrorCode): Promise<void> {
  let caught: unknown;
  try {
    await (typeof run === "function" ? run() : run);
  } catch (error) {
    caught = error;
  }
  expect(isAppError(caught) ? caught.code : caught).toBe(code);
}

import { afterAll, beforeAll, expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI, { APIError } from "openai";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.ts";
import type { Engine } from "../helpers/index-drivers.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

export const FIXTURES = join(import.meta.dir, "../fixtures/chat");

export interface ChatWorld {
  server: TestServer;
  upstream: FakeUpstream | null;
  stop(): Promise<void>;
}

/** A real server on port 0; with `upstream`, answers come from a fake OpenAI-compatible model that records calls. */
export async function startChatWorld(opts: { upstream?: boolean; env?: Record<string, string>; engine?: Engine } = {}): Promise<ChatWorld> {
  const upstream = opts.upstream ? startFakeUpstream() : null;
  const env: Record<string, string> = upstream
    ? { DOCCHAT_LLM_URL: upstream.url, DOCCHAT_LLM_MODEL: "fake-model" }
    : { DOCCHAT_LLM: "extractive" };
  const server = await startTestServer({ ...env, ...opts.env }, { engine: opts.engine });
  return {
    server,
    upstream,
    async stop() {
      await server.stop();
      await upstream?.close();
    },
  };
}

/**
 * For the enclosing describe block: a chat world on `engine` with a deployment trained on the handbook, both filled
 * in before its tests and stopped after them.
 */
export function useSeededChatWorld(engine: Engine, opts: { upstream?: boolean; env?: Record<string, string> } = {}) {
  const world = {} as ChatWorld;
  const seeded = {} as Awaited<ReturnType<typeof seedWithDocs>>;
  beforeAll(async () => {
    Object.assign(world, await startChatWorld({ ...opts, engine }));
    Object.assign(seeded, await seedWithDocs(world.server));
  }, 60_000);
  afterAll(() => world.stop());
  return { world, seeded };
}

/** Seeds a published deployment and trains it on the named fixture documents. */
export async function seedWithDocs(
  server: TestServer,
  docs: string[] = ["acme-handbook.txt"],
  seedOpts: Parameters<TestServer["seed"]>[0] = {},
) {
  const seeded = await server.seed(seedOpts);
  for (const name of docs) {
    const bytes = new Uint8Array(readFileSync(join(FIXTURES, name)));
    const r = await server.services.documents.push(
      { deploymentId: seeded.deploymentId, name, bytes, train: true, replace: true },
      { waitMs: 20_000 },
    );
    if (r.outcome !== "trained") throw new Error(`fixture ${name} did not train: ${r.outcome}`);
  }
  return seeded;
}

export function openaiClient(server: TestServer, apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
}

/** Calls that generated an answer (streamed), as opposed to follow-up rewrites (non-streamed `complete`). */
export const answerCalls = (u: FakeUpstream) => u.calls.filter((c) => c.body?.stream === true);

export async function balanceOf(server: TestServer, accountId: number): Promise<number> {
  return (await server.services.repos.accounts.findById(accountId))?.tokens ?? -1;
}

export async function postJson(server: TestServer, path: string, apiKey: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * Reads a stream the fake model breaks off (mode "truncated"): the text before the break arrives, then the client
 * raises the failure as an APIError.
 */
export async function expectBrokenOff<T>(stream: AsyncIterable<T>, textOf: (event: T) => string): Promise<void> {
  let text = "";
  const error = await (async () => {
    for await (const event of stream) text += textOf(event);
  })().catch((e: unknown) => e);
  expect(text).toBe("Half an ");
  expect(error).toBeInstanceOf(APIError);
  expect((error as APIError).message).toContain("temporarily unavailable");
}

/** What the openai client raised for a 400 bad_request naming `param`. */
export function expectBadRequestError(error: unknown, param: string): void {
  expect(error).toBeInstanceOf(APIError);
  expect((error as APIError).status).toBe(400);
  expect((error as APIError).code).toBe("bad_request");
  expect((error as APIError).param).toBe(param);
}

/**
 * Moving up (issue 12): a populated SQLite data dir — documents with vectors from an embeddings server, chats,
 * ratings, a correction, a lead with its mail, keys — copied with `docchat db copy` into an empty PostgreSQL
 * database gives a deployment that answers the same questions with the same sources, under the same key.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";
import { runCliProcess, startTestServer, type TestServer, tempDir } from "../helpers/server.ts";

setDefaultTimeout(120_000);

const FIXTURES = join(import.meta.dir, "../fixtures/chat");
const QUESTIONS = [
  "How long are backups kept?",
  "How much does the Pro plan cost?",
  "When is the support desk open?",
  "Can monthly plans be refunded?",
  "What can visitors see in the harbour museum?",
  "Who won the football world cup in 1954?",
];

let cluster: PgCluster;
let noModels: string;
let models: FakeModelServer;
let dataDir: string;
let env: Record<string, string>;
let key: string;
let deploymentId: string;
interface Asked {
  status: number;
  sources: unknown;
  answer: unknown;
  refused: unknown;
}
const before: Asked[] = [];
let correctedQuestion: string;

const ask = async (s: TestServer, question: string) => {
  const r = await fetch(`${s.url}/api/v1/chat/completions-with-sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "docchat", messages: [{ role: "user", content: question }] }),
  });
  const body = (await r.json()) as {
    sources?: string[];
    refused?: boolean;
    chat_log_id?: number;
    conversation_id?: string;
    choices?: { message: { content: string } }[];
  };
  return { status: r.status, sources: body.sources, answer: body.choices?.[0]?.message.content, refused: body.refused, body };
};

beforeAll(async () => {
  cluster = await startPostgres();
  models = startFakeModelServer({ dimension: 64 });
  noModels = tempDir("docchat-no-models-");
  env = {
    DOCCHAT_EMBEDDER: "auto",
    DOCCHAT_MODELS: noModels,
    DOCCHAT_EMBEDDINGS_URL: models.url,
    DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
    DOCCHAT_TRAIN_WAIT_MS: "20000",
  };
  dataDir = tempDir();
  const s = await startTestServer(env, { dataDir });
  try {
    const seeded = await s.seed({ tokens: 50_000 });
    key = seeded.apiKey;
    deploymentId = seeded.deploymentId;
    await s.services.deployments.update(deploymentId, { handoffEnabled: true });
    for (const name of ["acme-handbook.txt", "harbour-museum.txt"]) {
      const r = await s.services.documents.push(
        { deploymentId, name, bytes: new Uint8Array(readFileSync(join(FIXTURES, name))), train: true, replace: true },
        { waitMs: 20_000 },
      );
      expect(r.outcome).toBe("trained");
    }
    // visitor data: answers, a rating with its correction, a refusal with a lead and its mail
    const rated = await ask(s, "Is there an emergency hotline?");
    await s.services.feedback.rate(deploymentId, rated.body.chat_log_id as number, 0);
    await s.services.corrections.set(
      rated.body.chat_log_id as number,
      "Yes: Enterprise customers call the emergency hotline, day and night.",
    );
    correctedQuestion = "Is there an emergency hotline?";
    const refusal = await ask(s, "Do you sell garden furniture?");
    expect(refusal.refused).toBe(true);
    const deployment = await s.services.deployments.getOrThrow(deploymentId);
    await s.services.leads.handoff({
      deployment,
      ownerEmail: seeded.email,
      email: "visitor@example.org",
      conversationId: refusal.body.conversation_id,
    });
    for (const q of QUESTIONS) before.push(await ask(s, q));
  } finally {
    await s.stop();
  }
}, 120_000);

afterAll(async () => {
  await models?.close();
  await cluster?.stop();
  for (const d of [dataDir, noModels]) if (d) rmSync(d, { recursive: true, force: true });
});

describe("db copy from SQLite to PostgreSQL", () => {
  test("the copied deployment answers the same questions with the same sources, under the same key", async () => {
    const copy = await runCliProcess(["db", "copy", "--from-data", dataDir, "--to", cluster.url]);
    expect(`${copy.code} ${copy.stderr}`).toStartWith("0 ");
    expect(copy.stdout + copy.stderr).not.toContain("postgres://docchat@");
    const pgDir = tempDir();
    const s = await startTestServer({ ...env, DOCCHAT_DATABASE_URL: cluster.url }, { dataDir: pgDir });
    try {
      for (const [i, q] of QUESTIONS.entries()) {
        const after = await ask(s, q);
        const was = before[i] as Asked;
        const now: Asked & { q: string } = {
          q,
          status: after.status,
          sources: after.sources,
          answer: after.answer,
          refused: after.refused,
        };
        expect(now).toEqual({
          q,
          status: was.status,
          sources: was.sources,
          answer: was.answer,
          refused: was.refused,
        });
      }
      // the owner's correction is served, the lead and its mail came along, the ledger too
      const corrected = await ask(s, correctedQuestion);
      expect(corrected.answer).toBe("Yes: Enterprise customers call the emergency hotline, day and night.");
      const leads = await s.services.leads.list(deploymentId);
      expect(leads.map((l) => l.email)).toEqual(["visitor@example.org"]);
      expect(leads[0]?.mail).not.toBeNull();
      expect(await s.services.repos.chunkIndex.meta("embedder")).toMatch(/@64$/);
    } finally {
      await s.stop();
      rmSync(pgDir, { recursive: true, force: true });
    }
  });
});

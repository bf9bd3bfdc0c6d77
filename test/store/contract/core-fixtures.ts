/** Rows the core contract tests build on (deployments with an owner, documents with prepared chunks), on either engine. */
import { randomBytes } from "node:crypto";
import type { Deployment, DocumentRecord, NewChunk, Store } from "../../../src/store/contract/index.ts";
import type { PgStore } from "../../../src/store/postgres/pg-store.ts";
import { withTerms } from "../../helpers/analyzed.ts";

export const uid = (prefix: string) => `${prefix}_${randomBytes(9).toString("base64url")}`;

/**
 * An owner account. PostgreSQL's accounts repo comes from the wt-pg-visitor branch; until it is merged the row is
 * written directly (same columns as the repo writes).
 */
export async function account(store: Store, tokens = 1000): Promise<{ id: number; email: string }> {
  const email = `${uid("owner")}@example.com`;
  if (store.engine === "sqlite") return store.repos.accounts.create({ email, passwordHash: null, tokens });
  const sql = (store as PgStore).sql;
  const [row] = (await sql`INSERT INTO accounts (email, tokens, created_at) VALUES (${email}, ${tokens}, ${Date.now()}) RETURNING id`) as {
    id: string;
  }[];
  return { id: Number(row?.id), email };
}

export async function deployment(store: Store, opts: { accountId?: number; published?: boolean; name?: string } = {}): Promise<Deployment> {
  const accountId = opts.accountId ?? (await account(store)).id;
  return store.repos.deployments.create({
    id: uid("dep"),
    accountId,
    name: opts.name ?? "Docs",
    kind: "docs",
    published: opts.published ?? true,
  });
}

export const chunk = (text: string, ord = 0, vector?: Float32Array): NewChunk =>
  withTerms({
    ord,
    source: "doc",
    text,
    headingPath: "",
    tokenCount: text.split(" ").length,
    textHash: `h:${text}`,
    vector,
  });

/** A queued (or stored) small document whose prepared chunks are one part. */
export async function document(
  store: Store,
  deploymentId: string,
  opts: { name?: string; queue?: boolean; replaceOnTrain?: boolean; text?: string; origin?: "owner" | "key" } = {},
): Promise<DocumentRecord> {
  const text = opts.text ?? "walrus tusks are long";
  return store.repos.documents.insert({
    id: uid("doc"),
    deploymentId,
    name: opts.name ?? "notes.txt",
    kind: "txt",
    contentHash: uid("hash"),
    bytes: new TextEncoder().encode(text),
    chunks: JSON.stringify({ ord: 0, text }),
    pages: null,
    queue: opts.queue ?? true,
    replaceOnTrain: opts.replaceOnTrain ?? false,
    origin: opts.origin,
  });
}

/** Runs `body` with a 3-dimension vector table, removed afterwards: the other tests run without vectors. */
export async function withVectorTable(store: Store, body: () => Promise<void>): Promise<void> {
  await store.repos.chunkIndex.createVectorTable(3);
  try {
    await body();
  } finally {
    await store.repos.chunkIndex.createVectorTable(null);
  }
}

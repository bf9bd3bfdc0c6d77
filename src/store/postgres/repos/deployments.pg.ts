import type { SQL } from "bun";
import { type DeploymentPatch, type DeploymentRow, type TrainingStatus, toDeployment } from "../../repos/deployments.repo.ts";
import type { DeploymentsStore } from "../../store.ts";
import type { PgChunkIndex } from "../chunk-index.pg.ts";
import { numOrNull, type Raw } from "./values.ts";

/** A deployments row as SQLite returns it (bigint columns arrive as strings). */
export const pgDeploymentRow = (r: Raw): DeploymentRow => ({
  ...(r as unknown as DeploymentRow),
  account_id: Number(r.account_id),
  temperature: Number(r.temperature),
  refusal_threshold: numOrNull(r.refusal_threshold),
  trained_at: numOrNull(r.trained_at),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

/** Patch keys → column and the value SQLite stores (flags 0/1, lists as JSON). Column names are fixed here. */
const columns: { [K in keyof DeploymentPatch]-?: (v: NonNullable<DeploymentPatch[K]> | null) => [string, string | number | null] } = {
  name: (v) => ["name", v],
  published: (v) => ["published", v ? 1 : 0],
  persona: (v) => ["persona", v],
  temperature: (v) => ["temperature", v],
  starterQuestions: (v) => ["starter_questions", JSON.stringify(v)],
  qaPairs: (v) => ["qa_pairs", JSON.stringify(v)],
  handoffEnabled: (v) => ["handoff_enabled", v ? 1 : 0],
  ipAllow: (v) => ["ip_allow", JSON.stringify(v)],
  keyManagesDocuments: (v) => ["key_manages_documents", v ? 1 : 0],
  pushEnabled: (v) => ["push_enabled", v ? 1 : 0],
  pushIpAllow: (v) => ["push_ip_allow", JSON.stringify(v)],
  refusalThreshold: (v) => ["refusal_threshold", v],
  languages: (v) => ["languages", (v ?? []).join(",")],
  refusalText: (v) => ["refusal_text", v],
};

/**
 * Deployments on PostgreSQL (the SQLite twin is repos/deployments.repo.ts). Every change fires the key-cache
 * notification (migration 002's trigger), so a deployment unpublished on one node is enforced by all of them;
 * `onChange` runs after this node's own writes (keys.pg.ts invalidate).
 */
export function createPgDeploymentsRepo(sql: SQL, index: PgChunkIndex, opts: { onChange?: () => void } = {}): DeploymentsStore {
  /** after a write commits: this node's key cache (keys.pg.ts) forgets the deployment at once */
  const changed = () => opts.onChange?.();
  const byId = async (id: string) => {
    const r = ((await sql`SELECT * FROM deployments WHERE id = ${id}`) as Raw[])[0];
    return r ? toDeployment(pgDeploymentRow(r)) : null;
  };
  return {
    async create(input) {
      const at = Date.now();
      const [row] = (await sql`INSERT INTO deployments (id, account_id, name, kind, published, created_at, updated_at)
        VALUES (${input.id}, ${input.accountId}, ${input.name}, ${input.kind}, ${input.published ? 1 : 0}, ${at}, ${at}) RETURNING *`) as Raw[];
      return toDeployment(pgDeploymentRow(row as Raw));
    },
    findById: byId,
    async findOwned(id, accountId) {
      const d = await byId(id);
      return d && d.accountId === accountId ? d : null;
    },
    async list(accountId?: number) {
      const rows =
        accountId === undefined
          ? ((await sql`SELECT * FROM deployments ORDER BY created_at, id`) as Raw[])
          : ((await sql`SELECT * FROM deployments WHERE account_id = ${accountId} ORDER BY created_at, id`) as Raw[]);
      return rows.map((r) => toDeployment(pgDeploymentRow(r)));
    },
    async update(id, patch) {
      const set: Record<string, string | number | null> = {};
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) continue;
        const [col, val] = columns[k as keyof DeploymentPatch](v as never);
        set[col] = val;
      }
      set.updated_at = Date.now();
      await sql`UPDATE deployments SET ${sql(set)} WHERE id = ${id}`;
      changed();
      return byId(id);
    },
    async setTrainingStatus(id: string, status: TrainingStatus) {
      await setTrainingStatus(sql, id, status);
      changed();
    },
    /** The deployment and everything it owns; its keyword rows and vectors go first (they have no foreign key to cascade through). */
    async remove(id) {
      await sql.begin(async (tx) => {
        // document rows before keyword locks, the order training takes them in (training.pg.ts): no deadlock with a worker
        await tx`SELECT id FROM documents WHERE deployment_id = ${id} ORDER BY id FOR UPDATE`;
        await index.dropDeployment(id, tx);
        await tx`DELETE FROM deployments WHERE id = ${id}`;
      });
      changed();
    },
  };
}

/** SQLite's setTrainingStatus, on any handle (a transaction's too). */
export async function setTrainingStatus(tx: SQL, id: string, status: TrainingStatus): Promise<void> {
  const at = Date.now();
  await tx`UPDATE deployments SET training_status = ${status},
    trained_at = CASE WHEN ${status}::text = 'completed' THEN ${at}::bigint ELSE trained_at END, updated_at = ${at} WHERE id = ${id}`;
}

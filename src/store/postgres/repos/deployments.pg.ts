import type { SQL } from "bun";
import type { DeploymentRow, DeploymentsStore, TrainingStatus } from "../../contract/deployments.contract.ts";
import { deploymentOrNull, ownedBy, patchColumns, toDeployment } from "../../contract/deployments.contract.ts";
import type { PgChunkIndex } from "../chunk-index.pg.ts";
import { first, rows } from "./values.ts";

/** Sets the status (and `trained_at` when it becomes 'completed'), on any handle: a transaction's too. */
export async function setTrainingStatus(tx: SQL, id: string, status: TrainingStatus, at = Date.now()): Promise<void> {
  await tx`UPDATE deployments SET training_status = ${status},
    trained_at = CASE WHEN ${status}::text = 'completed' THEN ${at}::bigint ELSE trained_at END, updated_at = ${at} WHERE id = ${id}`;
}

/**
 * Deployments on PostgreSQL. Every change fires the key-cache notification (migration 002's trigger), so a
 * deployment unpublished on one node is enforced by all of them; `onChange` runs after this node's own writes
 * (keys.pg.ts invalidate).
 */
export function createPgDeploymentsRepo(sql: SQL, index: PgChunkIndex, opts: { onChange?: () => void } = {}): DeploymentsStore {
  /** after a write commits: this node's key cache (keys.pg.ts) forgets the deployment at once */
  const changed = () => opts.onChange?.();
  const byId = async (id: string) => deploymentOrNull(await first<DeploymentRow>(sql`SELECT * FROM deployments WHERE id = ${id}`));
  return {
    async create(input) {
      const at = Date.now();
      const row = await first<DeploymentRow>(sql`INSERT INTO deployments (id, account_id, name, kind, published, created_at, updated_at)
        VALUES (${input.id}, ${input.accountId}, ${input.name}, ${input.kind}, ${input.published ? 1 : 0}, ${at}, ${at}) RETURNING *`);
      if (!row) throw new Error("deployment insert returned no row");
      return toDeployment(row);
    },
    findById: byId,
    findOwned: async (id, accountId) => ownedBy(await byId(id), accountId),
    async list(accountId) {
      const found =
        accountId === undefined
          ? await rows<DeploymentRow>(sql`SELECT * FROM deployments ORDER BY created_at, id`)
          : await rows<DeploymentRow>(sql`SELECT * FROM deployments WHERE account_id = ${accountId} ORDER BY created_at, id`);
      return found.map(toDeployment);
    },
    async update(id, patch) {
      await sql`UPDATE deployments SET ${sql(patchColumns(patch, Date.now()))} WHERE id = ${id}`;
      changed();
      return byId(id);
    },
    async setTrainingStatus(id, status) {
      await setTrainingStatus(sql, id, status);
      changed();
    },
    /** Its keyword rows and vectors go first (they have no foreign key to cascade through). */
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

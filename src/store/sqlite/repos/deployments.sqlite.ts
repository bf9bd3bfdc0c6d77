import type { DeploymentRow, DeploymentsStore, TrainingStatus } from "../../contract/deployments.contract.ts";
import { deploymentOrNull, ownedBy, patchColumns, toDeployment } from "../../contract/deployments.contract.ts";
import type { Db } from "../db.ts";
import { dropKeywordTable } from "../keyword-tables.ts";
import { deleteDeploymentVectors } from "../vector-search.sqlite.ts";

/** Inside a caller's transaction too (the training store's status refresh). */
export function setTrainingStatus(db: Db, id: string, status: TrainingStatus, at = Date.now()): void {
  db.run(
    "UPDATE deployments SET training_status = ?, trained_at = CASE WHEN ? = 'completed' THEN ? ELSE trained_at END, updated_at = ? WHERE id = ?",
    [status, status, at, at, id],
  );
}

export function createSqliteDeploymentsRepo(db: Db): DeploymentsStore {
  const byId = db.query<DeploymentRow, [string]>("SELECT * FROM deployments WHERE id = ?");
  const find = (id: string) => deploymentOrNull(byId.get(id));
  const insert = db.query<DeploymentRow, [string, number, string, string, number, number]>(
    "INSERT INTO deployments (id, account_id, name, kind, published, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6) RETURNING *",
  );
  return {
    async create(input) {
      return toDeployment(
        insert.get(input.id, input.accountId, input.name, input.kind, input.published ? 1 : 0, Date.now()) as DeploymentRow,
      );
    },
    findById: async (id) => find(id),
    findOwned: async (id, accountId) => ownedBy(find(id), accountId),
    async list(accountId) {
      const rows =
        accountId === undefined
          ? db.query<DeploymentRow, []>("SELECT * FROM deployments ORDER BY created_at, id").all()
          : db.query<DeploymentRow, [number]>("SELECT * FROM deployments WHERE account_id = ? ORDER BY created_at, id").all(accountId);
      return rows.map(toDeployment);
    },
    async update(id, patch) {
      const set = Object.entries(patchColumns(patch, Date.now()));
      db.run(`UPDATE deployments SET ${set.map(([col]) => `${col} = ?`).join(", ")} WHERE id = ?`, [...set.map(([, v]) => v), id]);
      return find(id);
    },
    async setTrainingStatus(id, status) {
      setTrainingStatus(db, id, status);
    },
    async remove(id) {
      db.transaction(() => {
        dropKeywordTable(db, id);
        deleteDeploymentVectors(db, id);
        db.run("DELETE FROM deployments WHERE id = ?", [id]);
      }).immediate();
    },
  };
}

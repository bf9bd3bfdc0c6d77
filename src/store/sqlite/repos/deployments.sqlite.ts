import type { DeploymentRow, DeploymentsStore, TrainingStatus } from "../../contract/deployments.contract.ts";
import { patchColumns, toDeployment } from "../../contract/deployments.contract.ts";
import type { Db } from "../db.ts";
import { dropKeywordTable } from "../keyword-tables.ts";
import { deleteDeploymentVectors } from "../vector-search.sqlite.ts";

/** Inside a caller's transaction too (the training store's status refresh). */
export function setTrainingStatus(db: Db, id: string, status: TrainingStatus): void {
  const at = Date.now();
  db.run(
    "UPDATE deployments SET training_status = ?, trained_at = CASE WHEN ? = 'completed' THEN ? ELSE trained_at END, updated_at = ? WHERE id = ?",
    [status, status, at, at, id],
  );
}

export function createSqliteDeploymentsRepo(db: Db): DeploymentsStore {
  const byId = db.query<DeploymentRow, [string]>("SELECT * FROM deployments WHERE id = ?");
  const find = (id: string) => {
    const r = byId.get(id);
    return r ? toDeployment(r) : null;
  };
  return {
    async create(input) {
      const at = Date.now();
      const row = db
        .query<DeploymentRow, [string, number, string, string, number, number, number]>(
          "INSERT INTO deployments (id, account_id, name, kind, published, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .get(input.id, input.accountId, input.name, input.kind, input.published ? 1 : 0, at, at) as DeploymentRow;
      return toDeployment(row);
    },
    findById: async (id) => find(id),
    async findOwned(id, accountId) {
      const d = find(id);
      return d && d.accountId === accountId ? d : null;
    },
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

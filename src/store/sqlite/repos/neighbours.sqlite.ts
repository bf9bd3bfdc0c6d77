import { NEIGHBOUR_COLUMNS, type NeighbourRow, type NeighboursStore, toNeighbour } from "../../contract/neighbours.contract.ts";
import type { Db } from "../db.ts";

/**
 * Passages by id for agents (MCP fetch): a chunk and its neighbours in its document, looked up within the deployment,
 * so another deployment's chunk — or a large document's chunk still staged — is simply not found.
 */
export function createSqliteNeighboursRepo(db: Db): NeighboursStore {
  const around = db.query<NeighbourRow, [string, number, number, number]>(
    `SELECT ${NEIGHBOUR_COLUMNS} FROM chunks c JOIN chunks c2 ON c2.document_id = c.document_id AND c2.deployment_id = c.deployment_id
      WHERE c.deployment_id = ? AND c.id = ? AND c2.ord BETWEEN c.ord - ? AND c.ord + ? ORDER BY c2.ord`,
  );
  return {
    /** The passage and up to `radius` neighbours either side, in document order; [] when it is not in the deployment. */
    async around(deploymentId, chunkId, radius) {
      return around.all(deploymentId, chunkId, radius, radius).map(toNeighbour);
    },
  };
}

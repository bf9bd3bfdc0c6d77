import type { SQL } from "bun";
import { NEIGHBOUR_COLUMNS, type NeighbourRow, type NeighboursStore, toNeighbour } from "../../contract/neighbours.contract.ts";
import type { Raw } from "./values.ts";

/** The PostgreSQL twin of sqlite/repos/neighbours.sqlite.ts. */
export function createPgNeighboursRepo(sql: SQL): NeighboursStore {
  return {
    async around(deploymentId: string, chunkId: number, radius: number) {
      const rows = (await sql.unsafe(
        `SELECT ${NEIGHBOUR_COLUMNS} FROM chunks c JOIN chunks c2 ON c2.document_id = c.document_id AND c2.deployment_id = c.deployment_id
          WHERE c.deployment_id = $1 AND c.id = $2::bigint AND c2.ord BETWEEN c.ord - $3::integer AND c.ord + $3::integer ORDER BY c2.ord`,
        [deploymentId, chunkId, radius],
      )) as Raw[];
      return rows.map((r) => toNeighbour(r as unknown as NeighbourRow));
    },
  };
}

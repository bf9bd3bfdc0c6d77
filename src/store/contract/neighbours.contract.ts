import { type ChunkRow, type PassagePlace, toPassagePlace } from "./chunk-index.contract.ts";
import { num } from "./row-values.ts";

/** One indexed passage as an agent fetches it: where it is, verbatim. */
export interface Neighbour extends PassagePlace {
  chunkId: number;
  documentId: string;
  source: string;
}

/** The chunk columns a passage reads. */
export type NeighbourRow = Pick<
  ChunkRow,
  "id" | "document_id" | "ord" | "source" | "text" | "heading_path" | "page_start" | "page_end" | "row_start" | "row_end"
>;

export const toNeighbour = (r: NeighbourRow): Neighbour => ({
  ...toPassagePlace(r),
  chunkId: num(r.id),
  documentId: r.document_id,
  source: r.source,
});

export const NEIGHBOUR_COLUMNS =
  "c2.id, c2.document_id, c2.ord, c2.source, c2.text, c2.heading_path, c2.page_start, c2.page_end, c2.row_start, c2.row_end";

/**
 * Passages by id for agents (MCP fetch): a chunk and its neighbours in its document, looked up within the deployment,
 * so another deployment's chunk — or a large document's chunk still staged — is simply not found.
 */
export interface NeighboursStore {
  /** The passage and up to `radius` neighbours either side, in document order; [] when it is not in the deployment. */
  around(deploymentId: string, chunkId: number, radius: number): Promise<Neighbour[]>;
}

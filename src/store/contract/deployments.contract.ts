import { type FlagCell, flag, type IntCell, jsonOf, num, numOrNull } from "./row-values.ts";

export type DeploymentKind = "docs" | "private_gpt";
export type TrainingStatus = "none" | "queued" | "processing" | "completed" | "failed";

export interface QaPair {
  question: string;
  answer: string;
}

/** A document set with its persona and settings; one API key answers for it. */
export interface Deployment {
  id: string;
  accountId: number;
  name: string;
  /** what the deployment's documents cover, in the owner's words (agents read it in the MCP server's instructions) */
  description: string;
  kind: DeploymentKind;
  published: boolean;
  persona: string;
  temperature: number;
  starterQuestions: string[];
  qaPairs: QaPair[];
  handoffEnabled: boolean;
  ipAllow: string[];
  /** the deployment key may list and remove documents (off by default: the key is public in the widget) */
  keyManagesDocuments: boolean;
  /** the deployment key may push documents */
  pushEnabled: boolean;
  /** addresses allowed to push (empty: any address the main allow-list lets in) */
  pushIpAllow: string[];
  /** the key's storage share in this deployment (null: the service default) */
  pushMaxDocuments: number | null;
  pushMaxBytes: number | null;
  /** the owner's refusal threshold (0..1); null uses the service default for the retrieval mode */
  refusalThreshold: number | null;
  /** ISO 639-1 codes of the languages the owner pinned (empty: detected from the documents) */
  languages: string[];
  /** the owner's own refusal text, said in every language (null: docchat's, in the visitor's language) */
  refusalText: string | null;
  trainingStatus: TrainingStatus;
  trainedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** The settings an owner may change; absent fields stay as they are. */
export interface DeploymentPatch {
  name?: string;
  description?: string;
  published?: boolean;
  persona?: string;
  temperature?: number;
  starterQuestions?: string[];
  qaPairs?: QaPair[];
  handoffEnabled?: boolean;
  ipAllow?: string[];
  keyManagesDocuments?: boolean;
  pushEnabled?: boolean;
  pushIpAllow?: string[];
  /** null goes back to the service default */
  pushMaxDocuments?: number | null;
  pushMaxBytes?: number | null;
  /** null goes back to the service default */
  refusalThreshold?: number | null;
  /** [] goes back to detection */
  languages?: string[];
  /** null goes back to docchat's refusal */
  refusalText?: string | null;
}

export interface DeploymentRow {
  id: string;
  account_id: IntCell;
  name: string;
  description: string;
  kind: DeploymentKind;
  published: FlagCell;
  persona: string;
  temperature: IntCell;
  starter_questions: string;
  qa_pairs: string;
  handoff_enabled: FlagCell;
  ip_allow: string;
  key_manages_documents: FlagCell;
  push_enabled: FlagCell;
  push_ip_allow: string;
  push_max_documents: IntCell | null;
  push_max_bytes: IntCell | null;
  refusal_threshold: IntCell | null;
  languages: string;
  refusal_text: string | null;
  training_status: TrainingStatus;
  trained_at: IntCell | null;
  created_at: IntCell;
  updated_at: IntCell;
}

export const toDeployment = (r: DeploymentRow): Deployment => ({
  id: r.id,
  accountId: num(r.account_id),
  name: r.name,
  description: r.description ?? "",
  kind: r.kind,
  published: flag(r.published),
  persona: r.persona,
  temperature: num(r.temperature),
  starterQuestions: jsonOf<string[]>(r.starter_questions),
  qaPairs: jsonOf<QaPair[]>(r.qa_pairs),
  handoffEnabled: flag(r.handoff_enabled),
  ipAllow: jsonOf<string[]>(r.ip_allow),
  keyManagesDocuments: flag(r.key_manages_documents),
  pushEnabled: flag(r.push_enabled),
  pushIpAllow: jsonOf<string[]>(r.push_ip_allow),
  pushMaxDocuments: numOrNull(r.push_max_documents ?? null),
  pushMaxBytes: numOrNull(r.push_max_bytes ?? null),
  refusalThreshold: numOrNull(r.refusal_threshold),
  languages: r.languages ? r.languages.split(",") : [],
  refusalText: r.refusal_text ?? null,
  trainingStatus: r.training_status,
  trainedAt: numOrNull(r.trained_at),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

/** A lookup's row, mapped (null when there is none). */
export const deploymentOrNull = (r: DeploymentRow | null | undefined): Deployment | null => (r ? toDeployment(r) : null);

/** The deployment when it belongs to the account; another account's is "not found", like a missing one. */
export const ownedBy = (d: Deployment | null, accountId: number): Deployment | null => (d && d.accountId === accountId ? d : null);

type Cell = string | number | null;
/** Each patch field's column and the value stored there (flags 0/1, lists as JSON). Column names are fixed here. */
const PATCH_COLUMNS: { [K in keyof DeploymentPatch]-?: (v: NonNullable<DeploymentPatch[K]> | null) => [string, Cell] } = {
  name: (v) => ["name", v],
  description: (v) => ["description", v],
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
  pushMaxDocuments: (v) => ["push_max_documents", v],
  pushMaxBytes: (v) => ["push_max_bytes", v],
  refusalThreshold: (v) => ["refusal_threshold", v],
  languages: (v) => ["languages", (v ?? []).join(",")],
  refusalText: (v) => ["refusal_text", v],
};

/** The columns a patch sets (with `updated_at`), for either driver's UPDATE. */
export function patchColumns(patch: DeploymentPatch, at: number): Record<string, Cell> {
  const set: Record<string, Cell> = {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    const [col, val] = PATCH_COLUMNS[k as keyof DeploymentPatch](v as never);
    set[col] = val;
  }
  set.updated_at = at;
  return set;
}

/** A deployment's training status from how many of its documents are in each status (every engine's store). */
export function trainingStatusOf(c: { processing: number; queued: number; completed: number; failed: number }): TrainingStatus {
  return c.processing > 0 ? "processing" : c.queued > 0 ? "queued" : c.completed > 0 ? "completed" : c.failed > 0 ? "failed" : "none";
}

export interface DeploymentsStore {
  create(input: { id: string; accountId: number; name: string; kind: DeploymentKind; published: boolean }): Promise<Deployment>;
  findById(id: string): Promise<Deployment | null>;
  /** Owner-scoped lookup: another account's deployment is indistinguishable from a missing one. */
  findOwned(id: string, accountId: number): Promise<Deployment | null>;
  /** Oldest first; every account's when `accountId` is left out. */
  list(accountId?: number): Promise<Deployment[]>;
  /** Applies the patch; the deployment as it is now, or null when it does not exist. */
  update(id: string, patch: DeploymentPatch): Promise<Deployment | null>;
  /** `trained_at` moves when the status becomes 'completed'. */
  setTrainingStatus(id: string, status: TrainingStatus): Promise<void>;
  /** The deployment and everything it owns, its index included (keyword rows and vectors have no foreign key). */
  remove(id: string): Promise<void>;
}

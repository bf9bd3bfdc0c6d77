import type { Db } from "../db.ts";
import { dropKeywordTable } from "../keyword-tables.ts";

export type DeploymentKind = "docs" | "private_gpt";
export type TrainingStatus = "none" | "queued" | "processing" | "completed" | "failed";

/** A deployment's training status from how many of its documents are in each status (every engine's store). */
export function trainingStatusOf(c: { processing: number; queued: number; completed: number; failed: number }): TrainingStatus {
  return c.processing > 0 ? "processing" : c.queued > 0 ? "queued" : c.completed > 0 ? "completed" : c.failed > 0 ? "failed" : "none";
}

export interface QaPair {
  question: string;
  answer: string;
}

export interface Deployment {
  id: string;
  accountId: number;
  name: string;
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

export interface DeploymentRow {
  id: string;
  account_id: number;
  name: string;
  kind: DeploymentKind;
  published: number;
  persona: string;
  temperature: number;
  starter_questions: string;
  qa_pairs: string;
  handoff_enabled: number;
  ip_allow: string;
  key_manages_documents: number;
  push_enabled: number;
  push_ip_allow: string;
  refusal_threshold: number | null;
  languages: string;
  refusal_text: string | null;
  training_status: TrainingStatus;
  trained_at: number | null;
  created_at: number;
  updated_at: number;
}

export const toDeployment = (r: DeploymentRow): Deployment => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  kind: r.kind,
  published: r.published === 1,
  persona: r.persona,
  temperature: r.temperature,
  starterQuestions: JSON.parse(r.starter_questions) as string[],
  qaPairs: JSON.parse(r.qa_pairs) as QaPair[],
  handoffEnabled: r.handoff_enabled === 1,
  ipAllow: JSON.parse(r.ip_allow) as string[],
  keyManagesDocuments: r.key_manages_documents === 1,
  pushEnabled: r.push_enabled === 1,
  pushIpAllow: JSON.parse(r.push_ip_allow) as string[],
  refusalThreshold: r.refusal_threshold ?? null,
  languages: r.languages ? r.languages.split(",") : [],
  refusalText: r.refusal_text ?? null,
  trainingStatus: r.training_status,
  trainedAt: r.trained_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface DeploymentPatch {
  name?: string;
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
  refusalThreshold?: number | null;
  /** [] goes back to detection */
  languages?: string[];
  /** null goes back to docchat's refusal */
  refusalText?: string | null;
}

const columns: Record<keyof DeploymentPatch, (v: never) => [string, string | number | null]> = {
  name: (v: string) => ["name", v],
  published: (v: boolean) => ["published", v ? 1 : 0],
  persona: (v: string) => ["persona", v],
  temperature: (v: number) => ["temperature", v],
  starterQuestions: (v: string[]) => ["starter_questions", JSON.stringify(v)],
  qaPairs: (v: QaPair[]) => ["qa_pairs", JSON.stringify(v)],
  handoffEnabled: (v: boolean) => ["handoff_enabled", v ? 1 : 0],
  ipAllow: (v: string[]) => ["ip_allow", JSON.stringify(v)],
  keyManagesDocuments: (v: boolean) => ["key_manages_documents", v ? 1 : 0],
  pushEnabled: (v: boolean) => ["push_enabled", v ? 1 : 0],
  pushIpAllow: (v: string[]) => ["push_ip_allow", JSON.stringify(v)],
  refusalThreshold: (v: number | null) => ["refusal_threshold", v],
  languages: (v: string[]) => ["languages", v.join(",")],
  refusalText: (v: string | null) => ["refusal_text", v],
};

export function createDeploymentsRepo(db: Db) {
  const byId = db.query<DeploymentRow, [string]>("SELECT * FROM deployments WHERE id = ?");
  return {
    create(input: { id: string; accountId: number; name: string; kind: DeploymentKind; published: boolean }): Deployment {
      const at = Date.now();
      const row = db
        .query<DeploymentRow, [string, number, string, string, number, number, number]>(
          "INSERT INTO deployments (id, account_id, name, kind, published, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .get(input.id, input.accountId, input.name, input.kind, input.published ? 1 : 0, at, at) as DeploymentRow;
      return toDeployment(row);
    },
    findById(id: string): Deployment | null {
      const r = byId.get(id);
      return r ? toDeployment(r) : null;
    },
    /** Owner-scoped lookup: another account's deployment is indistinguishable from a missing one. */
    findOwned(id: string, accountId: number): Deployment | null {
      const r = byId.get(id);
      return r && r.account_id === accountId ? toDeployment(r) : null;
    },
    list(accountId?: number): Deployment[] {
      const rows =
        accountId === undefined
          ? db.query<DeploymentRow, []>("SELECT * FROM deployments ORDER BY created_at, id").all()
          : db.query<DeploymentRow, [number]>("SELECT * FROM deployments WHERE account_id = ? ORDER BY created_at, id").all(accountId);
      return rows.map(toDeployment);
    },
    update(id: string, patch: DeploymentPatch): Deployment | null {
      const sets: string[] = [];
      const values: (string | number | null)[] = [];
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) continue;
        const [col, val] = columns[k as keyof DeploymentPatch](v as never);
        sets.push(`${col} = ?`);
        values.push(val);
      }
      sets.push("updated_at = ?");
      values.push(Date.now());
      db.run(`UPDATE deployments SET ${sets.join(", ")} WHERE id = ?`, [...values, id]);
      return this.findById(id);
    },
    setTrainingStatus(id: string, status: TrainingStatus): void {
      const at = Date.now();
      db.run(
        "UPDATE deployments SET training_status = ?, trained_at = CASE WHEN ? = 'completed' THEN ? ELSE trained_at END, updated_at = ? WHERE id = ?",
        [status, status, at, at, id],
      );
    },
    remove(id: string): void {
      db.transaction(() => {
        dropKeywordTable(db, id);
        // vec0 rows have no foreign key to cascade through
        if (db.query("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'").get())
          db.run("DELETE FROM chunks_vec WHERE deployment_id = ?", [id]);
        db.run("DELETE FROM deployments WHERE id = ?", [id]);
      }).immediate();
    },
  };
}

export type DeploymentsRepo = ReturnType<typeof createDeploymentsRepo>;

import { createHash, randomBytes } from "node:crypto";
import type { Config } from "../config/index.ts";
import { appError } from "../errors/index.ts";
import type { ParsedDocument } from "../ingest/types.ts";
import type { DeploymentsRepo } from "../store/repos/deployments.repo.ts";
import type { DocumentRecord, DocumentsRepo } from "../store/repos/documents.repo.ts";
import type { ChunkIndexRepo } from "../store/repos/chunk-index.repo.ts";
import type { Db } from "../store/db.ts";
import { refreshDeploymentStatus, type TrainingWorker } from "./training.worker.ts";

export type ParseFn = (bytes: Uint8Array, opts: { filename?: string }) => Promise<ParsedDocument>;

export interface PushInput {
  deploymentId: string;
  name: string;
  bytes: Uint8Array;
  train: boolean;
  replace: boolean;
}

export interface PushResult {
  document: DocumentRecord;
  /** identical content under the same name was already there: nothing was added */
  unchanged: boolean;
  outcome: "trained" | "queued" | "stored" | "failed";
}

const NAME_MAX = 255;

/** Keeps the last path segment and refuses control characters; the name becomes the citation source. */
export function cleanDocumentName(raw: string): string {
  const base = raw.split(/[\\/]/).pop()?.trim() ?? "";
  if (!base || base.length > NAME_MAX || /[\u0000-\u001f\u007f]/.test(base)) {
    throw appError("bad_request", { param: "name", message: `name must be 1–${NAME_MAX} printable characters.` });
  }
  return base;
}

export function createDocumentsService(deps: {
  db: Db;
  config: Config;
  documents: DocumentsRepo;
  deployments: DeploymentsRepo;
  index: ChunkIndexRepo;
  training: TrainingWorker;
  parse: ParseFn;
}) {
  const { documents, config } = deps;

  /**
   * Resolves when every document has left queued/processing, or when `ms` has passed. The worker's change events
   * answer at once; the poll covers training done by another process on the same data dir (CLI `train --wait`).
   */
  async function waitFor(ids: string[], ms: number): Promise<boolean> {
    const settled = () => ids.every((id) => {
      const d = documents.get(id);
      return !d || d.status === "completed" || d.status === "failed" || d.status === "stored";
    });
    if (settled()) return true;
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), ms);
      const poll = setInterval(() => settled() && finish(true), 100);
      const off = deps.training.onChange(() => settled() && finish(true));
      function finish(v: boolean) {
        clearTimeout(timer);
        clearInterval(poll);
        off();
        resolve(v);
      }
    });
  }

  /** Per-account quotas, checked before the file is parsed or stored. A replacing push doesn't count what it replaces. */
  function checkQuota(input: PushInput, name: string): void {
    const accountId = deps.deployments.findById(input.deploymentId)?.accountId;
    if (accountId === undefined) throw appError("not_found", { message: "No such deployment.", param: "deployment" });
    const used = documents.accountUsage(accountId, input.replace ? { deploymentId: input.deploymentId, name } : null);
    if (used.documents + 1 > config.accountMaxDocuments) {
      throw appError("storage_quota_exceeded", { param: "documents", message: `This account already keeps ${used.documents} documents, its limit. Remove some to add more.` });
    }
    if (used.bytes + input.bytes.byteLength > config.accountMaxBytes) {
      throw appError("storage_quota_exceeded", { param: "bytes", message: `This document would take the account past its storage limit of ${config.accountMaxBytes} bytes. Remove documents to make room.` });
    }
  }

  return {
    waitFor,
    async push(input: PushInput, opts: { waitMs?: number } = {}): Promise<PushResult> {
      const name = cleanDocumentName(input.name);
      if (input.bytes.byteLength === 0) throw appError("document_unreadable", { message: "The document is empty." });
      if (input.bytes.byteLength > config.maxUploadBytes) throw appError("payload_too_large");
      const hash = createHash("sha256").update(input.bytes).digest("hex");
      const same = documents.findByName(input.deploymentId, name).find((d) => d.contentHash === hash && d.status !== "failed");
      if (same) {
        if (input.train && same.status === "stored") {
          documents.queueDeployment(input.deploymentId);
          deps.training.kick();
        }
        const current = documents.get(same.id) as DocumentRecord;
        return { document: current, unchanged: true, outcome: current.status === "completed" ? "trained" : current.status === "stored" ? "stored" : "queued" };
      }
      checkQuota(input, name);
      // Parse before storing: a file that can't be read is refused with a 4xx and leaves nothing behind.
      const parsed = await deps.parse(input.bytes, { filename: name });
      const doc = documents.insert({
        id: `doc_${randomBytes(9).toString("base64url")}`,
        deploymentId: input.deploymentId,
        name,
        kind: parsed.kind,
        contentHash: hash,
        bytes: input.bytes,
        parsed: JSON.stringify(parsed),
        pages: parsed.pages ?? null,
        queue: input.train,
        replaceOnTrain: input.replace,
      });
      if (!input.train) return { document: doc, unchanged: false, outcome: "stored" };
      refreshDeploymentStatus(deps, input.deploymentId);
      deps.training.kick();
      const waitMs = opts.waitMs ?? config.trainWaitMs;
      // A zero wait means "never wait": the answer is 202 even if the worker happens to be quick.
      if (waitMs <= 0) return { document: doc, unchanged: false, outcome: "queued" };
      await waitFor([doc.id], waitMs);
      const now = documents.get(doc.id) ?? doc;
      // Only a completed document is "stored and trained"; one whose training failed is reported as failed.
      return { document: now, unchanged: false, outcome: now.status === "completed" ? "trained" : now.status === "failed" ? "failed" : "queued" };
    },
    list(deploymentId: string): DocumentRecord[] {
      return documents.list(deploymentId);
    },
    getOrThrow(id: string, deploymentId: string): DocumentRecord {
      const d = documents.getScoped(id, deploymentId);
      if (!d) throw appError("not_found", { message: "No such document.", param: "document" });
      return d;
    },
    /** Removes the document and all its index rows in one transaction. */
    remove(id: string, deploymentId: string): DocumentRecord {
      const d = this.getOrThrow(id, deploymentId);
      deps.db.transaction(() => {
        deps.index.deleteDocument(id);
        documents.deleteRow(id);
        refreshDeploymentStatus(deps, deploymentId);
      }).immediate();
      return d;
    },
    /** Queues every untrained or failed document of the deployment. */
    train(deploymentId: string): number {
      const n = documents.queueDeployment(deploymentId);
      refreshDeploymentStatus(deps, deploymentId);
      deps.training.kick();
      return n;
    },
  };
}

export type DocumentsService = ReturnType<typeof createDocumentsService>;

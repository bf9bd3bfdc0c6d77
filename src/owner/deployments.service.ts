import { randomBytes } from "node:crypto";
import { appError } from "../errors/index.ts";
import { parseCidr } from "../net/cidr.ts";
import { parseLanguageList } from "../rag/terms.ts";
import type {
  Deployment,
  DeploymentKind,
  DeploymentPatch,
  DeploymentsStore,
  KeyContext,
  KeysStore,
  QaPair,
  TrainingStatus,
} from "../store/contract/index.ts";
import { createKeyHasher, displayPrefix, generateApiKey, hashApiKey } from "./api-keys.ts";

export const TEMPERATURE_RANGE = { min: 0, max: 2 } as const;
const LIMITS = {
  name: 200,
  description: 2000,
  persona: 4000,
  question: 500,
  answer: 4000,
  items: 50,
  cidrs: 200,
  refusalText: 1000,
} as const;

function newDeploymentId(): string {
  return `dep_${randomBytes(9).toString("base64url")}`;
}

/** Validates an owner's settings patch; every failure names the field. */
export function validatePatch(patch: DeploymentPatch): DeploymentPatch {
  const bad = (param: string, message: string) => appError("bad_request", { param, message });
  if (patch.name !== undefined && (patch.name.trim() === "" || patch.name.length > LIMITS.name))
    throw bad("name", `name must be 1–${LIMITS.name} characters.`);
  if (patch.description !== undefined && patch.description.length > LIMITS.description)
    throw bad("description", `description must be at most ${LIMITS.description} characters.`);
  if (patch.persona !== undefined && patch.persona.length > LIMITS.persona)
    throw bad("persona", `persona must be at most ${LIMITS.persona} characters.`);
  if (patch.temperature !== undefined && !(patch.temperature >= TEMPERATURE_RANGE.min && patch.temperature <= TEMPERATURE_RANGE.max)) {
    throw bad("temperature", `temperature must be from ${TEMPERATURE_RANGE.min} to ${TEMPERATURE_RANGE.max}.`);
  }
  if (
    patch.refusalThreshold !== undefined &&
    patch.refusalThreshold !== null &&
    !(patch.refusalThreshold >= 0 && patch.refusalThreshold <= 1)
  ) {
    throw bad("refusal_threshold", "refusal_threshold must be from 0 to 1, or null for the default.");
  }
  if (patch.languages !== undefined) {
    try {
      patch.languages = parseLanguageList(patch.languages.join(","));
    } catch (e) {
      throw bad("languages", `${(e as Error).message}.`);
    }
  }
  if (patch.refusalText !== undefined && patch.refusalText !== null && patch.refusalText.length > LIMITS.refusalText)
    throw bad("refusal_text", `refusal_text must be at most ${LIMITS.refusalText} characters.`);
  if (patch.starterQuestions !== undefined) {
    if (patch.starterQuestions.length > LIMITS.items) throw bad("starter_questions", `at most ${LIMITS.items} starter questions.`);
    for (const q of patch.starterQuestions)
      if (!q.trim() || q.length > LIMITS.question) throw bad("starter_questions", "each starter question must be 1–500 characters.");
  }
  if (patch.qaPairs !== undefined) {
    if (patch.qaPairs.length > LIMITS.items) throw bad("qa_pairs", `at most ${LIMITS.items} Q&A pairs.`);
    for (const p of patch.qaPairs as QaPair[]) {
      if (!p.question?.trim() || !p.answer?.trim() || p.question.length > LIMITS.question || p.answer.length > LIMITS.answer) {
        throw bad("qa_pairs", "each Q&A pair needs a question (≤500) and an answer (≤4000).");
      }
    }
  }
  for (const [list, param] of [
    [patch.ipAllow, "ip_allow"],
    [patch.pushIpAllow, "push_ip_allow"],
  ] as const) {
    if (list === undefined) continue;
    if (list.length > LIMITS.cidrs) throw bad(param, `at most ${LIMITS.cidrs} addresses.`);
    for (const c of list) if (!parseCidr(c)) throw bad(param, `"${c}" is not a valid IP address or CIDR.`);
  }
  return patch;
}

export function createDeploymentsService(deps: {
  deployments: DeploymentsStore;
  keys: KeysStore;
  /** the owner pinned other languages: the deployment's keyword index is re-analyzed (documents/keyword-reindex.ts) */
  languagesChanged?: (deploymentId: string) => Promise<void>;
}) {
  const { deployments, keys } = deps;
  const gateHash = createKeyHasher();
  const issueKey = async (deploymentId: string) => {
    const apiKey = generateApiKey();
    await keys.put(deploymentId, hashApiKey(apiKey), displayPrefix(apiKey));
    return apiKey;
  };
  return {
    /** Creates the deployment and its key; the key is returned here once and never again. */
    async create(input: {
      accountId: number;
      name: string;
      kind?: DeploymentKind;
      published?: boolean;
    }): Promise<{ deployment: Deployment; apiKey: string }> {
      validatePatch({ name: input.name });
      const kind = input.kind ?? "docs";
      if (kind !== "docs" && kind !== "private_gpt")
        throw appError("bad_request", { param: "kind", message: "kind must be docs or private_gpt." });
      const deployment = await deployments.create({
        id: newDeploymentId(),
        accountId: input.accountId,
        name: input.name.trim(),
        kind,
        published: input.published ?? false,
      });
      // A Private GPT deployment has no documents to train: it is usable as soon as it exists.
      if (kind === "private_gpt") await deployments.setTrainingStatus(deployment.id, "completed");
      const apiKey = await issueKey(deployment.id);
      return { deployment: (await deployments.findById(deployment.id)) ?? deployment, apiKey };
    },
    async getOrThrow(id: string, accountId?: number): Promise<Deployment> {
      const d = accountId === undefined ? await deployments.findById(id) : await deployments.findOwned(id, accountId);
      if (!d) throw appError("not_found", { message: "No such deployment.", param: "deployment" });
      return d;
    },
    async update(id: string, patch: DeploymentPatch, accountId?: number): Promise<Deployment> {
      const before = await this.getOrThrow(id, accountId);
      const after = (await deployments.update(id, validatePatch(patch))) as Deployment;
      if (after.languages.join(",") !== before.languages.join(",")) await deps.languagesChanged?.(id);
      return after;
    },
    async regenerateKey(id: string, accountId?: number): Promise<string> {
      await this.getOrThrow(id, accountId);
      return issueKey(id);
    },
    async setKeyDisabled(id: string, disabled: boolean, accountId?: number): Promise<void> {
      await this.getOrThrow(id, accountId);
      if (!(await keys.setDisabled(id, disabled))) throw appError("not_found", { message: "This deployment has no key; regenerate one." });
    },
    /** An API key → its key, deployment and owner; null when it is no deployment's (garbage never costs a lookup). */
    resolveKey(key: string): Promise<KeyContext | null> {
      const hash = gateHash(key);
      return hash ? keys.resolve(hash) : Promise.resolve(null);
    },
    /** resolveKey's answer when it is available at once (see KeysStore.peek); undefined when it must be awaited. */
    resolveKeyNow(key: string): KeyContext | null | undefined {
      const hash = gateHash(key);
      return hash ? keys.peek(hash) : null;
    },
    keyInfo(id: string) {
      return keys.findForDeployment(id);
    },
    /** An account's deployments, oldest first. */
    list(accountId: number): Promise<Deployment[]> {
      return deployments.list(accountId);
    },
    /** The deployment's training status as it is now ("none" once it is gone). */
    async trainingStatus(id: string): Promise<TrainingStatus> {
      return (await deployments.findById(id))?.trainingStatus ?? "none";
    },
  };
}

export type DeploymentsService = ReturnType<typeof createDeploymentsService>;

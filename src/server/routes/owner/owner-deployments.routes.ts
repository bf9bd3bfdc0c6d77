import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import { displayPrefix } from "../../../owner/api-keys.ts";
import type { DeploymentPatch } from "../../../store/contract/index.ts";
import {
  createDeploymentBody,
  createDeploymentResponse,
  deploymentListResponse,
  deploymentParams,
  deploymentSchema,
  keyPatchBody,
  keyResponse,
  keyStateResponse,
  patchDeploymentBody,
} from "./owner.schemas.ts";
import type { OwnerGuard } from "./owner-guard.ts";
import { ownerDeploymentView } from "./owner-views.ts";

const KEY_WARNING = "This key is shown only now. Copy it and keep it safe: it cannot be displayed again, only replaced.";

type PatchBody = typeof patchDeploymentBody.static;

function toPatch(b: PatchBody): DeploymentPatch {
  return {
    name: b.name,
    published: b.published,
    description: b.description,
    persona: b.persona,
    temperature: b.temperature,
    starterQuestions: b.starter_questions?.map((q) => q.trim()).filter(Boolean),
    qaPairs: b.qa_pairs?.map((p) => ({ question: p.question.trim(), answer: p.answer.trim() })),
    handoffEnabled: b.handoff_enabled,
    ipAllow: b.ip_allow?.map((c) => c.trim()).filter(Boolean),
    keyManagesDocuments: b.key_manages_documents,
    pushEnabled: b.push_enabled,
    pushIpAllow: b.push_ip_allow?.map((c) => c.trim()).filter(Boolean),
    pushMaxDocuments: b.push_max_documents,
    pushMaxBytes: b.push_max_bytes,
    refusalThreshold: b.refusal_threshold,
    languages: b.languages,
    refusalText: b.refusal_text === undefined ? undefined : b.refusal_text?.trim() || null,
  };
}

/** The owner's deployments and their keys; every id is looked up within the signed-in account. */
export function ownerDeploymentRoutes(services: Services, guard: OwnerGuard) {
  const tags = ["deployments"];
  return new Elysia({ name: "owner-deployments", prefix: "/owner/api" })
    .get(
      "/deployments",
      async ({ request }) => {
        const { account } = await guard.session(request);
        return {
          data: await Promise.all((await services.deployments.list(account.id)).map((d) => ownerDeploymentView(services, d))),
        };
      },
      { response: { 200: deploymentListResponse }, detail: { summary: "List deployments", tags } },
    )
    .post(
      "/deployments",
      async ({ request, body, set }) => {
        const { account } = await guard.session(request);
        const { deployment, apiKey } = await services.deployments.create({
          accountId: account.id,
          name: body.name,
          kind: body.kind ?? "docs",
          published: false,
        });
        set.status = 201;
        return {
          deployment: await ownerDeploymentView(services, deployment),
          api_key: apiKey,
          key_prefix: displayPrefix(apiKey),
          warning: KEY_WARNING,
        };
      },
      {
        body: createDeploymentBody,
        response: { 201: createDeploymentResponse },
        detail: { summary: "Create a deployment and its key (the key is shown once)", tags },
      },
    )
    .get(
      "/deployments/:id",
      async ({ request, params }) => ownerDeploymentView(services, (await guard.deployment(request, params.id)).deployment),
      {
        params: deploymentParams,
        response: { 200: deploymentSchema },
        detail: { summary: "One deployment", tags },
      },
    )
    .patch(
      "/deployments/:id",
      async ({ request, params, body }) => {
        const { session } = await guard.deployment(request, params.id);
        return ownerDeploymentView(services, await services.deployments.update(params.id, toPatch(body), session.account.id));
      },
      {
        params: deploymentParams,
        body: patchDeploymentBody,
        response: { 200: deploymentSchema },
        detail: {
          summary:
            "Change settings: name, description, published, persona, temperature, starter questions, Q&A pairs, handoff, IP allow-list, what the key may do with documents, refusal threshold",
          tags,
        },
      },
    )
    .post(
      "/deployments/:id/key",
      async ({ request, params }) => {
        const { session } = await guard.deployment(request, params.id);
        const apiKey = await services.deployments.regenerateKey(params.id, session.account.id);
        return { api_key: apiKey, key_prefix: displayPrefix(apiKey), warning: KEY_WARNING };
      },
      {
        params: deploymentParams,
        response: { 200: keyResponse },
        detail: { summary: "Create or regenerate the key (the old one stops working; shown once)", tags },
      },
    )
    .patch(
      "/deployments/:id/key",
      async ({ request, params, body }) => {
        const { session } = await guard.deployment(request, params.id);
        await services.deployments.setKeyDisabled(params.id, body.disabled, session.account.id);
        const key = await services.deployments.keyInfo(params.id);
        return { key_prefix: key?.displayPrefix ?? null, key_disabled: key?.disabled ?? null };
      },
      {
        params: deploymentParams,
        body: keyPatchBody,
        response: { 200: keyStateResponse },
        detail: { summary: "Disable or re-enable the key", tags },
      },
    );
}

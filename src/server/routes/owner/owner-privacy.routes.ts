import { Elysia, t } from "elysia";
import type { Services } from "../../../app.ts";
import { erasureSubject } from "../../../owner/privacy.service.ts";
import { deploymentParams } from "./owner.schemas.ts";
import type { OwnerGuard } from "./owner-guard.ts";
import { erasureBody, erasureSchema, policyBody, policySchema } from "./owner-insight.schemas.ts";
import { erasureView, policyView } from "./owner-insight-views.ts";

/** A deployment's retention and citation policy, and erasing one visitor's data (with the record of erasures). */
export function ownerPrivacyRoutes(services: Services, guard: OwnerGuard) {
  return new Elysia({ name: "owner-privacy", prefix: "/owner/api" })
    .get(
      "/deployments/:id/policy",
      async ({ request, params }) => policyView(await services.privacy.policy((await guard.deployment(request, params.id)).deployment.id)),
      {
        params: deploymentParams,
        response: { 200: policySchema },
        detail: { summary: "Retention, transcripts and widget citations", tags: ["privacy"] },
      },
    )
    .put(
      "/deployments/:id/policy",
      async ({ request, params, body }) => {
        const { deployment } = await guard.deployment(request, params.id);
        return policyView(
          await services.privacy.setPolicy(deployment.id, {
            retentionDays: body.retention_days,
            transcripts: body.transcripts,
            widgetCitations: body.widget_citations,
          }),
        );
      },
      {
        params: deploymentParams,
        body: policyBody,
        response: { 200: policySchema },
        detail: { summary: "Change the policy (fields left out stay)", tags: ["privacy"] },
      },
    )
    .get(
      "/erasures",
      async ({ request }) => {
        const { account } = await guard.session(request);
        return { data: (await services.privacy.erasures(account.id)).map(erasureView) };
      },
      {
        response: { 200: t.Object({ data: t.Array(erasureSchema) }) },
        detail: { summary: "Erasures done, newest first", tags: ["privacy"] },
      },
    )
    .post(
      "/erasures",
      async ({ request, body, set }) => {
        const { account } = await guard.session(request);
        const deploymentIds = body.deployment_id ? [(await services.deployments.getOrThrow(body.deployment_id, account.id)).id] : undefined;
        const subject = erasureSubject({ email: body.email, conversationId: body.conversation_id });
        set.status = 201;
        return erasureView(await services.privacy.erase({ accountId: account.id, deploymentIds, subject, via: "owner-api" }));
      },
      {
        body: erasureBody,
        response: { 201: erasureSchema },
        detail: {
          summary:
            "Erase one visitor's chat logs, leads and lead mails by email or conversation id (every deployment, or one), and record it",
          tags: ["privacy"],
        },
      },
    );
}

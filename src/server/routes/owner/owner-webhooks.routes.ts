import type { Services } from "../../../app.ts";
import { toSeconds } from "../../../shared/wire-time.ts";
import type { WebhookDelivery, WebhookEndpoint } from "../../../store/contract/index.ts";
import { WEBHOOK_EVENTS } from "../../../webhooks/webhook-events.ts";
import { deploymentParams, okResponse } from "./owner.schemas.ts";
import { deploymentRoutes, type OwnerGuard } from "./owner-guard.ts";
import {
  createWebhookBody,
  deliveriesQuery,
  deliveriesResponse,
  deliveryParams,
  patchWebhookBody,
  webhookDeliverySchema,
  webhookEndpointSchema,
  webhookListResponse,
  webhookParams,
} from "./owner-webhooks.schemas.ts";

const endpointView = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  enabled: e.enabled,
  description: e.description,
  secret: e.secret,
  created_at: toSeconds(e.createdAt),
  updated_at: toSeconds(e.updatedAt),
});

const deliveryView = (d: WebhookDelivery) => ({
  id: d.id,
  endpoint_id: d.endpointId,
  event_id: d.eventId,
  type: d.eventType,
  status: d.status,
  attempts: d.attempts,
  last_status: d.lastStatus,
  last_error: d.lastError,
  last_attempt_at: toSeconds(d.lastAttemptAt),
  next_attempt_at: d.status === "pending" ? toSeconds(d.nextAttemptAt) : null,
  delivered_at: toSeconds(d.deliveredAt),
  created_at: toSeconds(d.createdAt),
  payload: d.payload,
});

/** A deployment's webhook endpoints, its delivery log, test events and redelivery; ids looked up within the owner's account. */
export function ownerWebhookRoutes(services: Services, guard: OwnerGuard) {
  const tags = ["webhooks"];
  const hooks = services.webhooks;
  return deploymentRoutes(guard, "owner-webhooks")
    .get(
      "/webhooks",
      async ({ deployment }) => {
        return { events: [...WEBHOOK_EVENTS], data: (await hooks.listEndpoints(deployment.id)).map(endpointView) };
      },
      {
        params: deploymentParams,
        response: { 200: webhookListResponse },
        detail: { summary: "Webhook endpoints and the events they can receive", tags },
      },
    )
    .post(
      "/webhooks",
      async ({ deployment, body, set }) => {
        set.status = 201;
        return endpointView(await hooks.createEndpoint(deployment.id, body));
      },
      {
        params: deploymentParams,
        body: createWebhookBody,
        response: { 201: webhookEndpointSchema },
        detail: {
          summary: "Add a webhook endpoint (a public http(s) URL; all events unless `events` says which); its secret is generated",
          tags,
        },
      },
    )
    .patch(
      "/webhooks/:endpointId",
      async ({ deployment, params, body }) => {
        return endpointView(await hooks.updateEndpoint(deployment.id, params.endpointId, { ...body, rotateSecret: body.rotate_secret }));
      },
      {
        params: webhookParams,
        body: patchWebhookBody,
        response: { 200: webhookEndpointSchema },
        detail: { summary: "Change an endpoint's URL, events, description, enabled state, or rotate its secret", tags },
      },
    )
    .delete(
      "/webhooks/:endpointId",
      async ({ deployment, params }) => {
        await hooks.removeEndpoint(deployment.id, params.endpointId);
        return { success: true as const };
      },
      { params: webhookParams, response: { 200: okResponse }, detail: { summary: "Remove an endpoint and its delivery log", tags } },
    )
    .post(
      "/webhooks/:endpointId/test",
      async ({ deployment, params, set }) => {
        set.status = 202;
        return deliveryView(await hooks.sendTest(deployment.id, params.endpointId));
      },
      {
        params: webhookParams,
        response: { 202: webhookDeliverySchema },
        detail: { summary: "Send a webhook.test event to this endpoint now; follow it in the delivery log", tags },
      },
    )
    .get(
      "/webhook-deliveries",
      async ({ deployment, query }) => {
        const limit = query.limit ?? 50;
        // One more than asked tells whether an older page exists.
        const rows = await hooks.deliveries(deployment.id, { endpointId: query.endpoint_id, limit: limit + 1, beforeId: query.before });
        const data = rows.slice(0, limit);
        return { data: data.map(deliveryView), next_before: rows.length > limit ? (data.at(-1)?.id ?? null) : null };
      },
      {
        params: deploymentParams,
        query: deliveriesQuery,
        response: { 200: deliveriesResponse },
        detail: { summary: "The delivery log, newest first: each event's status, attempts and the receiver's last answer", tags },
      },
    )
    .post(
      "/webhook-deliveries/:deliveryId/redeliver",
      async ({ deployment, params, set }) => {
        set.status = 202;
        return deliveryView(await hooks.redeliver(deployment.id, params.deliveryId));
      },
      {
        params: deliveryParams,
        response: { 202: webhookDeliverySchema },
        detail: { summary: "Send a delivered or dead-lettered event again, under the same webhook-id", tags },
      },
    );
}

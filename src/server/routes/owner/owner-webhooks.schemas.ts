import { t } from "elysia";
import { WEBHOOK_EVENTS } from "../../../webhooks/webhook-events.ts";

/** Request and response shapes of the owner API's webhooks (/owner/api/deployments/:id/webhooks*). */
const nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);
const eventList = t.Array(t.String({ maxLength: 40 }), {
  maxItems: 20,
  description: `event types to receive: ${WEBHOOK_EVENTS.join(", ")}`,
});

export const webhookEndpointSchema = t.Object({
  id: t.String(),
  url: t.String(),
  events: t.Array(t.String()),
  enabled: t.Boolean(),
  description: t.String(),
  secret: t.String({ description: "whsec_…: verify each delivery's webhook-signature with it (Standard Webhooks)" }),
  created_at: t.Number(),
  updated_at: t.Number(),
});

export const webhookListResponse = t.Object({
  events: t.Array(t.String(), { description: "every event type an endpoint can subscribe to" }),
  data: t.Array(webhookEndpointSchema),
});

export const createWebhookBody = t.Object({
  url: t.String({ maxLength: 2000 }),
  events: t.Optional(eventList),
  description: t.Optional(t.String({ maxLength: 200 })),
});

export const patchWebhookBody = t.Object({
  url: t.Optional(t.String({ maxLength: 2000 })),
  events: t.Optional(eventList),
  description: t.Optional(t.String({ maxLength: 200 })),
  enabled: t.Optional(t.Boolean()),
  rotate_secret: t.Optional(t.Boolean({ description: "replace the secret (the old one stops verifying at once)" })),
});

export const webhookParams = t.Object({ id: t.String({ maxLength: 100 }), endpointId: t.String({ maxLength: 100 }) });
export const deliveryParams = t.Object({ id: t.String({ maxLength: 100 }), deliveryId: t.Numeric({ minimum: 1 }) });

export const webhookDeliverySchema = t.Object({
  id: t.Number(),
  endpoint_id: t.String(),
  event_id: t.String({ description: "the idempotency id, sent as webhook-id on every attempt" }),
  type: t.String(),
  status: t.String({ description: "pending, sending, delivered or dead" }),
  attempts: t.Number(),
  last_status: nullable(t.Number({ description: "the receiver's HTTP status on the last attempt" })),
  last_error: nullable(t.String()),
  last_attempt_at: nullable(t.Number()),
  next_attempt_at: nullable(t.Number({ description: "when a pending delivery is tried next" })),
  delivered_at: nullable(t.Number()),
  created_at: t.Number(),
  payload: t.String({ description: "the exact body sent" }),
});

export const deliveriesQuery = t.Object({
  endpoint_id: t.Optional(t.String({ maxLength: 100 })),
  limit: t.Optional(t.Numeric({ minimum: 1, maximum: 200 })),
  before: t.Optional(t.Numeric({ minimum: 1 })),
});

export const deliveriesResponse = t.Object({
  data: t.Array(webhookDeliverySchema),
  next_before: nullable(t.Number({ description: "pass as `before` for the next (older) page; null on the last page" })),
});

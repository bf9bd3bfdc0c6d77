/** The events a deployment's webhooks can subscribe to (Standard Webhooks `type`). */
export const WEBHOOK_EVENTS = [
  "lead.created",
  "feedback.negative",
  "answer.refused",
  "document.trained",
  "document.failed",
  "balance.low",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** Sent by "send test event"; delivered to the one endpoint asked, whatever it subscribes to. */
export const TEST_EVENT = "webhook.test";

export const isWebhookEvent = (t: string): t is WebhookEventType => (WEBHOOK_EVENTS as readonly string[]).includes(t);

/** The body every delivery of the event carries, fixed when it is queued: `{type, timestamp, data}`. */
export function eventBody(type: string, data: Record<string, unknown>, at: number): string {
  return JSON.stringify({ type, timestamp: new Date(at).toISOString(), data });
}

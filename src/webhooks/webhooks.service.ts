import { randomBytes } from "node:crypto";
import { appError } from "../errors/index.ts";
import type { Logger } from "../log.ts";
import type { WebhookDelivery, WebhookEndpoint, WebhooksStore } from "../store/contract/index.ts";
import { checkWebhookUrl, publicAddresses } from "./webhook-address.ts";
import { eventBody, isWebhookEvent, TEST_EVENT, WEBHOOK_EVENTS } from "./webhook-events.ts";
import { newEventId, newWebhookSecret } from "./webhook-signature.ts";

const LIMITS = { endpoints: 10, description: 200 } as const;

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

/** An event to send: its deployment, type, idempotency id (the same on every emit of the same fact) and data. */
export interface WebhookEvent {
  deploymentId: string;
  type: string;
  eventId: string;
  data: Record<string, unknown>;
}

/**
 * A deployment's webhook endpoints, their delivery log, test events, and `emit`, which queues an event for every
 * subscribed endpoint in the durable outbox (the worker delivers it). Emitting the same event id twice queues it once.
 */
export function createWebhooksService(deps: {
  store: WebhooksStore;
  allowPrivate: boolean;
  log: Logger;
  onQueued?: () => void;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const bad = (param: string, message: string) => appError("bad_request", { param, message });

  async function validUrl(raw: string): Promise<string> {
    const url = checkWebhookUrl(raw);
    await publicAddresses(url.hostname, deps.allowPrivate);
    return url.toString();
  }
  function validEvents(events: string[]): string[] {
    const unique = [...new Set(events.map((e) => e.trim()))];
    if (unique.length === 0) throw bad("events", `events must name at least one of: ${WEBHOOK_EVENTS.join(", ")}.`);
    for (const e of unique) if (!isWebhookEvent(e)) throw bad("events", `Unknown event "${e}". Events: ${WEBHOOK_EVENTS.join(", ")}.`);
    return unique;
  }
  function validDescription(d: string): string {
    if (d.length > LIMITS.description) throw bad("description", `description must be at most ${LIMITS.description} characters.`);
    return d.trim();
  }
  const getEndpoint = async (deploymentId: string, id: string): Promise<WebhookEndpoint> => {
    const e = await deps.store.findEndpoint(deploymentId, id);
    if (!e) throw appError("not_found", { param: "endpoint_id", message: "No such webhook endpoint." });
    return e;
  };

  const service = {
    listEndpoints: (deploymentId: string) => deps.store.listEndpoints(deploymentId),
    getEndpoint,
    async createEndpoint(deploymentId: string, input: EndpointInput): Promise<WebhookEndpoint> {
      if (!input.url) throw bad("url", "url is required.");
      const url = await validUrl(input.url);
      const events = validEvents(input.events ?? [...WEBHOOK_EVENTS]);
      if ((await deps.store.listEndpoints(deploymentId)).length >= LIMITS.endpoints)
        throw bad("url", `A deployment can have at most ${LIMITS.endpoints} webhook endpoints.`);
      return deps.store.createEndpoint(
        {
          id: `whe_${randomBytes(9).toString("base64url")}`,
          deploymentId,
          url,
          secret: newWebhookSecret(),
          events,
          description: validDescription(input.description ?? ""),
        },
        now(),
      );
    },
    async updateEndpoint(deploymentId: string, id: string, input: EndpointInput & { rotateSecret?: boolean }): Promise<WebhookEndpoint> {
      await getEndpoint(deploymentId, id);
      const updated = await deps.store.updateEndpoint(
        deploymentId,
        id,
        {
          url: input.url === undefined ? undefined : await validUrl(input.url),
          events: input.events === undefined ? undefined : validEvents(input.events),
          description: input.description === undefined ? undefined : validDescription(input.description),
          enabled: input.enabled,
          secret: input.rotateSecret ? newWebhookSecret() : undefined,
        },
        now(),
      );
      return updated as WebhookEndpoint;
    },
    async removeEndpoint(deploymentId: string, id: string): Promise<void> {
      if (!(await deps.store.removeEndpoint(deploymentId, id)))
        throw appError("not_found", { param: "endpoint_id", message: "No such webhook endpoint." });
    },
    /** Queues a `webhook.test` event for this endpoint (subscribed or not); returns its delivery. */
    async sendTest(deploymentId: string, endpointId: string): Promise<WebhookDelivery> {
      const e = await getEndpoint(deploymentId, endpointId);
      const eventId = newEventId();
      const at = now();
      await deps.store.enqueue(
        {
          deploymentId,
          endpointId: e.id,
          eventId,
          type: TEST_EVENT,
          payload: eventBody(TEST_EVENT, { deployment_id: deploymentId, endpoint_id: e.id, message: "A test event from docchat." }, at),
        },
        at,
      );
      deps.onQueued?.();
      const [d] = await deps.store.listDeliveries(deploymentId, { endpointId: e.id, limit: 1 });
      return d as WebhookDelivery;
    },
    deliveries: (deploymentId: string, page: { endpointId?: string; limit: number; beforeId?: number }) =>
      deps.store.listDeliveries(deploymentId, page),
    async redeliver(deploymentId: string, deliveryId: number): Promise<WebhookDelivery> {
      const d = await deps.store.findDelivery(deploymentId, deliveryId);
      if (!d) throw appError("not_found", { param: "delivery_id", message: "No such delivery." });
      if (!(await deps.store.redeliver(deploymentId, deliveryId, now())))
        throw appError("bad_request", {
          param: "delivery_id",
          message: "This delivery is still on its way; it can be sent again once delivered or dead.",
        });
      deps.onQueued?.();
      return (await deps.store.findDelivery(deploymentId, deliveryId)) as WebhookDelivery;
    },
    /**
     * Queues the event for the deployment's subscribed endpoints. Never fails the operation that emitted it: an
     * error is logged (the fact itself is already stored and visible to the owner).
     */
    async emit(ev: WebhookEvent): Promise<void> {
      const at = now();
      try {
        const queued = await deps.store.enqueue(
          {
            deploymentId: ev.deploymentId,
            eventId: ev.eventId,
            type: ev.type,
            payload: eventBody(ev.type, { deployment_id: ev.deploymentId, ...ev.data }, at),
          },
          at,
        );
        if (queued > 0) deps.onQueued?.();
      } catch (e) {
        deps.log.error("webhook event not queued", { type: ev.type, eventId: ev.eventId, error: String((e as Error)?.message ?? e) });
      }
    },
  };
  return service;
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

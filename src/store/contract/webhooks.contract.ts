import { type FlagCell, flag, type IntCell, num, numOrNull } from "./row-values.ts";

export type DeliveryStatus = "pending" | "sending" | "delivered" | "dead";

/** One receiver of a deployment's events (Standard Webhooks): where, with which secret, for which event types. */
export interface WebhookEndpoint {
  id: string;
  deploymentId: string;
  url: string;
  /** `whsec_` + base64 key; shown to the owner, who verifies signatures with it */
  secret: string;
  events: string[];
  enabled: boolean;
  description: string;
  createdAt: number;
  updatedAt: number;
}

export interface NewWebhookEndpoint {
  id: string;
  deploymentId: string;
  url: string;
  secret: string;
  events: string[];
  description: string;
}

export type WebhookEndpointPatch = Partial<Pick<WebhookEndpoint, "url" | "secret" | "events" | "enabled" | "description">>;

/** One event for one endpoint, with the exact body every attempt sends. */
export interface WebhookDelivery {
  id: number;
  endpointId: string;
  deploymentId: string;
  /** the idempotency id, sent as `webhook-id`: the same on every retry */
  eventId: string;
  eventType: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  /** the receiver's HTTP status on the last attempt (null: no response) */
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: number | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** A claimed delivery with where it goes and the secret to sign it with. */
export interface ClaimedDelivery extends WebhookDelivery {
  url: string;
  secret: string;
}

/** An event to queue: for every enabled endpoint of the deployment subscribed to its type, or for one endpoint. */
export interface NewWebhookEvent {
  deploymentId: string;
  eventId: string;
  type: string;
  payload: string;
  /** only this endpoint, subscribed or not (a test event) */
  endpointId?: string;
}

export interface EndpointRow {
  id: string;
  deployment_id: string;
  url: string;
  secret: string;
  events: string;
  enabled: FlagCell;
  description: string;
  created_at: IntCell;
  updated_at: IntCell;
}

export interface DeliveryRow {
  id: IntCell;
  endpoint_id: string;
  deployment_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: DeliveryStatus;
  attempts: IntCell;
  next_attempt_at: IntCell;
  last_status: IntCell | null;
  last_error: string | null;
  last_attempt_at: IntCell | null;
  created_at: IntCell;
  delivered_at: IntCell | null;
}

export const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  deploymentId: r.deployment_id,
  url: r.url,
  secret: r.secret,
  events: JSON.parse(r.events) as string[],
  enabled: flag(r.enabled),
  description: r.description,
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

export const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: num(r.id),
  endpointId: r.endpoint_id,
  deploymentId: r.deployment_id,
  eventId: r.event_id,
  eventType: r.event_type,
  payload: r.payload,
  status: r.status,
  attempts: num(r.attempts),
  nextAttemptAt: num(r.next_attempt_at),
  lastStatus: numOrNull(r.last_status),
  lastError: r.last_error,
  lastAttemptAt: numOrNull(r.last_attempt_at),
  createdAt: num(r.created_at),
  deliveredAt: numOrNull(r.delivered_at),
});

/** Patch keys → column and stored value. */
export const endpointColumns: {
  [K in keyof WebhookEndpointPatch]-?: (v: NonNullable<WebhookEndpointPatch[K]>) => [string, string | number];
} = {
  url: (v) => ["url", v],
  secret: (v) => ["secret", v],
  events: (v) => ["events", JSON.stringify(v)],
  enabled: (v) => ["enabled", v ? 1 : 0],
  description: (v) => ["description", v],
};

export const ERROR_MAX = 500;

/**
 * A deployment's webhook endpoints and the durable outbox of their deliveries, shared by every node. A delivery is
 * claimed by moving it to 'sending' with `nextAttemptAt` as its lease expiry (like the mail outbox): a process that
 * dies mid-delivery leaves it to be claimed again once the lease runs out — the one duplicate a crash can cost,
 * under the same event id. Every lookup takes the deployment id; another deployment's rows are "not found".
 */
export interface WebhooksStore {
  createEndpoint(e: NewWebhookEndpoint, at?: number): Promise<WebhookEndpoint>;
  /** Oldest first. */
  listEndpoints(deploymentId: string): Promise<WebhookEndpoint[]>;
  findEndpoint(deploymentId: string, id: string): Promise<WebhookEndpoint | null>;
  /** The endpoint as it is now, or null when the deployment has no such endpoint. */
  updateEndpoint(deploymentId: string, id: string, patch: WebhookEndpointPatch, at?: number): Promise<WebhookEndpoint | null>;
  /** Removes it and its deliveries; false when there was none. */
  removeEndpoint(deploymentId: string, id: string): Promise<boolean>;
  /**
   * Queues the event for every enabled endpoint of its deployment subscribed to its type (or for the one endpoint
   * named), in one statement. An event id already queued for an endpoint is skipped: emitting twice delivers once.
   * Returns how many deliveries were queued.
   */
  enqueue(ev: NewWebhookEvent, at?: number): Promise<number>;
  /** Atomically takes the next due delivery of an enabled endpoint and leases it until `leaseUntil`. */
  claimNext(now: number, leaseUntil: number): Promise<ClaimedDelivery | null>;
  markDelivered(id: number, httpStatus: number, at?: number): Promise<void>;
  markRetry(id: number, o: { nextAttemptAt: number; httpStatus: number | null; error: string; at: number }): Promise<void>;
  markDead(id: number, o: { httpStatus: number | null; error: string; at: number }): Promise<void>;
  /** Newest first, a page at a time (id < beforeId); one endpoint's or the whole deployment's. */
  listDeliveries(deploymentId: string, o: { endpointId?: string; limit: number; beforeId?: number }): Promise<WebhookDelivery[]>;
  findDelivery(deploymentId: string, id: number): Promise<WebhookDelivery | null>;
  /** Sends a delivered or dead-lettered event again (same event id) with a fresh attempt budget; false otherwise. */
  redeliver(deploymentId: string, id: number, at?: number): Promise<boolean>;
  /** Deliveries waiting (pending or in flight), for the metrics gauge. */
  depth(): Promise<number>;
}

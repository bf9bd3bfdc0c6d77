import type { DeliveryRow, EndpointRow, WebhookEndpoint, WebhookEndpointPatch, WebhooksStore } from "../../contract/webhooks.contract.ts";
import { ERROR_MAX, endpointColumns, toDelivery, toEndpoint } from "../../contract/webhooks.contract.ts";
import type { Db } from "../db.ts";

/**
 * Webhook endpoints and their delivery outbox on SQLite. A delivery is claimed by moving it to 'sending' with
 * `next_attempt_at` as the lease expiry (like mail_outbox): a process that dies mid-delivery leaves the row to be
 * claimed again once the lease runs out, which is the one duplicate a crash can cost — under the same webhook-id.
 */
export function createSqliteWebhooksRepo(db: Db): WebhooksStore {
  const endpointById = db.query<EndpointRow, [string, string]>("SELECT * FROM webhook_endpoints WHERE id = ? AND deployment_id = ?");
  const claim = db.query<DeliveryRow & { url: string; secret: string }, [number, number]>(
    `UPDATE webhook_deliveries SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
      WHERE id = (SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled = 1
                   WHERE d.status IN ('pending', 'sending') AND d.next_attempt_at <= ?2 ORDER BY d.next_attempt_at, d.id LIMIT 1)
      RETURNING *, (SELECT url FROM webhook_endpoints WHERE id = endpoint_id) AS url,
                   (SELECT secret FROM webhook_endpoints WHERE id = endpoint_id) AS secret`,
  );
  const insert = `INSERT INTO webhook_deliveries (endpoint_id, deployment_id, event_id, event_type, payload, next_attempt_at, created_at)
    SELECT id, deployment_id, ?, ?, ?, ?, ? FROM webhook_endpoints`;
  const subscribers = "deployment_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?)";
  const enqueueFor = db.query(`${insert} WHERE id = ? AND deployment_id = ? ON CONFLICT (endpoint_id, event_id) DO NOTHING`);
  const enqueueAll = db.query(`${insert} WHERE ${subscribers} ON CONFLICT (endpoint_id, event_id) DO NOTHING`);
  const subscribed = db.query<{ one: number }, [string, string]>(`SELECT 1 AS one FROM webhook_endpoints WHERE ${subscribers} LIMIT 1`);
  const findEndpoint = async (deploymentId: string, id: string): Promise<WebhookEndpoint | null> => {
    const r = endpointById.get(id, deploymentId);
    return r ? toEndpoint(r) : null;
  };
  return {
    async createEndpoint(e, at = Date.now()) {
      const row = db
        .query<EndpointRow, [string, string, string, string, string, string, number, number]>(
          `INSERT INTO webhook_endpoints (id, deployment_id, url, secret, events, description, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(e.id, e.deploymentId, e.url, e.secret, JSON.stringify(e.events), e.description, at, at) as EndpointRow;
      return toEndpoint(row);
    },
    async listEndpoints(deploymentId) {
      return db
        .query<EndpointRow, [string]>("SELECT * FROM webhook_endpoints WHERE deployment_id = ? ORDER BY created_at, id")
        .all(deploymentId)
        .map(toEndpoint);
    },
    findEndpoint,
    async updateEndpoint(deploymentId, id, patch, at = Date.now()) {
      const sets: string[] = ["updated_at = ?"];
      const values: (string | number)[] = [at];
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) continue;
        const [col, val] = endpointColumns[k as keyof WebhookEndpointPatch](v as never);
        sets.push(`${col} = ?`);
        values.push(val);
      }
      db.run(`UPDATE webhook_endpoints SET ${sets.join(", ")} WHERE id = ? AND deployment_id = ?`, [...values, id, deploymentId]);
      return findEndpoint(deploymentId, id);
    },
    async removeEndpoint(deploymentId, id) {
      return db.run("DELETE FROM webhook_endpoints WHERE id = ? AND deployment_id = ?", [id, deploymentId]).changes > 0;
    },
    /**
     * Queues the event for every enabled endpoint of its deployment subscribed to its type (or for the one endpoint
     * named), in one statement (none when no endpoint subscribes). An event id already queued for an endpoint is skipped: emitting twice delivers once.
     * Returns how many deliveries were queued.
     */
    async enqueue(ev, at = Date.now()) {
      const values = [ev.eventId, ev.type, ev.payload, at, at];
      if (ev.endpointId) return enqueueFor.run(...values, ev.endpointId, ev.deploymentId).changes;
      // no subscriber, no write: an empty write transaction still cost ~0.1 ms, once per document a bulk load trains
      if (!subscribed.get(ev.deploymentId, ev.type)) return 0;
      return enqueueAll.run(...values, ev.deploymentId, ev.type).changes;
    },
    /** Atomically takes the next due delivery of an enabled endpoint and leases it until `leaseUntil`. */
    async claimNext(now, leaseUntil) {
      const r = claim.get(leaseUntil, now);
      return r ? { ...toDelivery(r), url: r.url, secret: r.secret } : null;
    },
    async markDelivered(id, httpStatus, at = Date.now()) {
      db.run(
        "UPDATE webhook_deliveries SET status = 'delivered', last_status = ?, last_error = NULL, last_attempt_at = ?, delivered_at = ? WHERE id = ?",
        [httpStatus, at, at, id],
      );
    },
    async markRetry(id, o) {
      db.run(
        "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, last_status = ?, last_error = ?, last_attempt_at = ? WHERE id = ?",
        [o.nextAttemptAt, o.httpStatus, o.error.slice(0, ERROR_MAX), o.at, id],
      );
    },
    async markDead(id, o) {
      db.run("UPDATE webhook_deliveries SET status = 'dead', last_status = ?, last_error = ?, last_attempt_at = ? WHERE id = ?", [
        o.httpStatus,
        o.error.slice(0, ERROR_MAX),
        o.at,
        id,
      ]);
    },
    /** Newest first, a page at a time (id < beforeId); one endpoint's or the whole deployment's. */
    async listDeliveries(deploymentId, o) {
      const before = o.beforeId ?? Number.MAX_SAFE_INTEGER;
      const rows = o.endpointId
        ? db
            .query<DeliveryRow, [string, string, number, number]>(
              "SELECT * FROM webhook_deliveries WHERE deployment_id = ? AND endpoint_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
            )
            .all(deploymentId, o.endpointId, before, o.limit)
        : db
            .query<DeliveryRow, [string, number, number]>(
              "SELECT * FROM webhook_deliveries WHERE deployment_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
            )
            .all(deploymentId, before, o.limit);
      return rows.map(toDelivery);
    },
    async findDelivery(deploymentId, id) {
      const r = db
        .query<DeliveryRow, [number, string]>("SELECT * FROM webhook_deliveries WHERE id = ? AND deployment_id = ?")
        .get(id, deploymentId);
      return r ? toDelivery(r) : null;
    },
    /** Sends a delivered or dead-lettered event again (same webhook-id), with a fresh attempt budget. */
    async redeliver(deploymentId, id, at = Date.now()) {
      return (
        db.run(
          "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ? WHERE id = ? AND deployment_id = ? AND status IN ('delivered', 'dead')",
          [at, id, deploymentId],
        ).changes > 0
      );
    },
    /** Deliveries waiting (pending or in flight), for the metrics gauge. */
    async depth() {
      return (
        db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'sending')").get()?.n ?? 0
      );
    },
  };
}

import type { SQL } from "bun";
import type { DeliveryRow, EndpointRow, WebhookEndpointPatch, WebhooksStore } from "../../contract/webhooks.contract.ts";
import { ERROR_MAX, endpointColumns, toDelivery, toEndpoint } from "../../contract/webhooks.contract.ts";
import { first, type Raw, text } from "./values.ts";

const endpointOf = (r: Raw) => toEndpoint(r as unknown as EndpointRow);
const deliveryOf = (r: Raw) => toDelivery(r as unknown as DeliveryRow);

/**
 * The PostgreSQL twin of sqlite/repos/webhooks.sqlite.ts, shared by every node: `FOR UPDATE SKIP LOCKED` lets nodes polling
 * at the same moment each take a different delivery, and the lease keeps one another node has just taken out of
 * reach until it runs out.
 */
export function createPgWebhooksRepo(sql: SQL): WebhooksStore {
  const findEndpoint = async (deploymentId: string, id: string) => {
    const r = await first(sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND deployment_id = ${deploymentId}`);
    return r ? endpointOf(r) : null;
  };
  return {
    async createEndpoint(e, at = Date.now()) {
      const r = await first(sql`INSERT INTO webhook_endpoints (id, deployment_id, url, secret, events, description, created_at, updated_at)
        VALUES (${e.id}, ${e.deploymentId}, ${text(e.url)}, ${e.secret}, ${JSON.stringify(e.events)}, ${text(e.description)}, ${at}::bigint, ${at}::bigint)
        RETURNING *`);
      return endpointOf(r as Raw);
    },
    async listEndpoints(deploymentId) {
      const rows = (await sql`SELECT * FROM webhook_endpoints WHERE deployment_id = ${deploymentId} ORDER BY created_at, id`) as Raw[];
      return rows.map(endpointOf);
    },
    findEndpoint,
    async updateEndpoint(deploymentId, id, patch, at = Date.now()) {
      const sets: Record<string, string | number> = { updated_at: at };
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) continue;
        const [col, val] = endpointColumns[k as keyof WebhookEndpointPatch](v as never);
        sets[col] = typeof val === "string" ? text(val) : val;
      }
      await sql`UPDATE webhook_endpoints SET ${sql(sets)} WHERE id = ${id} AND deployment_id = ${deploymentId}`;
      return findEndpoint(deploymentId, id);
    },
    async removeEndpoint(deploymentId, id) {
      return (await sql`DELETE FROM webhook_endpoints WHERE id = ${id} AND deployment_id = ${deploymentId}`).count > 0;
    },
    async enqueue(ev, at = Date.now()) {
      const r = ev.endpointId
        ? await sql`INSERT INTO webhook_deliveries (endpoint_id, deployment_id, event_id, event_type, payload, next_attempt_at, created_at)
            SELECT id, deployment_id, ${ev.eventId}, ${ev.type}, ${text(ev.payload)}, ${at}::bigint, ${at}::bigint FROM webhook_endpoints
            WHERE id = ${ev.endpointId} AND deployment_id = ${ev.deploymentId}
            ON CONFLICT (endpoint_id, event_id) DO NOTHING`
        : await sql`INSERT INTO webhook_deliveries (endpoint_id, deployment_id, event_id, event_type, payload, next_attempt_at, created_at)
            SELECT id, deployment_id, ${ev.eventId}, ${ev.type}, ${text(ev.payload)}, ${at}::bigint, ${at}::bigint FROM webhook_endpoints
            WHERE deployment_id = ${ev.deploymentId} AND enabled = 1 AND events::jsonb @> jsonb_build_array(${ev.type}::text)
            ON CONFLICT (endpoint_id, event_id) DO NOTHING`;
      return r.count;
    },
    async claimNext(now, leaseUntil) {
      const r =
        await first(sql`UPDATE webhook_deliveries d SET status = 'sending', attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}::bigint
        FROM webhook_endpoints e
        WHERE d.id = (SELECT d2.id FROM webhook_deliveries d2 JOIN webhook_endpoints e2 ON e2.id = d2.endpoint_id AND e2.enabled = 1
                       WHERE d2.status IN ('pending', 'sending') AND d2.next_attempt_at <= ${now}::bigint
                       ORDER BY d2.next_attempt_at, d2.id LIMIT 1 FOR UPDATE OF d2 SKIP LOCKED)
          AND e.id = d.endpoint_id
        RETURNING d.*, e.url, e.secret`);
      return r ? { ...deliveryOf(r), url: r.url as string, secret: r.secret as string } : null;
    },
    async markDelivered(id, httpStatus, at = Date.now()) {
      await sql`UPDATE webhook_deliveries SET status = 'delivered', last_status = ${httpStatus}, last_error = NULL,
        last_attempt_at = ${at}::bigint, delivered_at = ${at}::bigint WHERE id = ${id}`;
    },
    async markRetry(id, o) {
      await sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${o.nextAttemptAt}::bigint, last_status = ${o.httpStatus},
        last_error = ${text(o.error.slice(0, ERROR_MAX))}, last_attempt_at = ${o.at}::bigint WHERE id = ${id}`;
    },
    async markDead(id, o) {
      await sql`UPDATE webhook_deliveries SET status = 'dead', last_status = ${o.httpStatus},
        last_error = ${text(o.error.slice(0, ERROR_MAX))}, last_attempt_at = ${o.at}::bigint WHERE id = ${id}`;
    },
    async listDeliveries(deploymentId, o) {
      const before = o.beforeId ?? Number.MAX_SAFE_INTEGER;
      const rows = (
        o.endpointId
          ? await sql`SELECT * FROM webhook_deliveries WHERE deployment_id = ${deploymentId} AND endpoint_id = ${o.endpointId}
              AND id < ${before}::bigint ORDER BY id DESC LIMIT ${o.limit}`
          : await sql`SELECT * FROM webhook_deliveries WHERE deployment_id = ${deploymentId} AND id < ${before}::bigint
              ORDER BY id DESC LIMIT ${o.limit}`
      ) as Raw[];
      return rows.map(deliveryOf);
    },
    async findDelivery(deploymentId, id) {
      const r = await first(sql`SELECT * FROM webhook_deliveries WHERE id = ${id} AND deployment_id = ${deploymentId}`);
      return r ? deliveryOf(r) : null;
    },
    async redeliver(deploymentId, id, at = Date.now()) {
      const r = await sql`UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ${at}::bigint
        WHERE id = ${id} AND deployment_id = ${deploymentId} AND status IN ('delivered', 'dead')`;
      return r.count > 0;
    },
    async depth() {
      const r = await first(sql`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'sending')`);
      return Number(r?.n ?? 0);
    },
  };
}

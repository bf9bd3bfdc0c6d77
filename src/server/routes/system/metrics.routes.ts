import { createHash, timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import { appError } from "../../../errors/index.ts";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/**
 * GET /metrics for Prometheus. Off (404) unless DOCCHAT_METRICS_TOKEN is set; then only a scrape with that
 * token as Bearer is answered (compared in constant time), so the public port never shows the figures.
 */
export function metricsRoutes(services: Services) {
  const token = services.config.metricsToken;
  const expected = token ? digest(token) : null;
  return new Elysia({ name: "metrics" }).get("/metrics", async ({ request }) => {
    if (!expected) throw appError("not_found", { message: "No such endpoint." });
    const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    if (!given || !timingSafeEqual(digest(given), expected)) {
      throw appError("unauthorized", {
        message: "A valid metrics token is required.",
        headers: { "www-authenticate": 'Bearer realm="metrics"' },
      });
    }
    return new Response(await services.metrics.scrape(), {
      headers: { "content-type": services.metrics.contentType, "cache-control": "no-store" },
    });
  });
}

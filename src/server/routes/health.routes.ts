import { Elysia } from "elysia";
import type { Services } from "../../app.ts";

export function healthRoutes(services: Services) {
  return new Elysia({ name: "health" }).get("/health", () => {
    services.db.query("SELECT 1").get();
    return { status: "ok", version: services.version };
  });
}

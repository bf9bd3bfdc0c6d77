import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";

export function healthRoutes(services: Services) {
  return new Elysia({ name: "health" }).get("/health", async () => {
    await services.store.ping();
    return { status: "ok", version: services.version };
  });
}

import { Elysia } from "elysia";
import { PUBLIC_OPENAPI_PATH, publicOpenApi, type RegisteredRoute } from "../../openapi/public-openapi.ts";

/**
 * The public API's OpenAPI document, built from the routes the server registers (`routes`) on first request;
 * like the documentation it describes, it needs no key.
 */
export function openApiRoutes(version: string, routes: () => RegisteredRoute[]) {
  let spec: unknown = null;
  return new Elysia({ name: "public-openapi" }).get(PUBLIC_OPENAPI_PATH, ({ set }) => {
    set.headers["cache-control"] = "public, max-age=300";
    spec ??= publicOpenApi(version, routes());
    return spec;
  });
}

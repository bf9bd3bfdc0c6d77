import { Elysia } from "elysia";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { modelsDoc } from "./models.schemas.ts";

/** The deployment behind the key, as the one model (OpenAI `GET /v1/models`). */
export function modelsRoutes(state: RequestStates) {
  return new Elysia({ name: "models" }).get(
    "/api/v1/models",
    ({ request }) => {
      const { deployment, account } = state.gateOf(request);
      return {
        object: "list" as const,
        data: [
          {
            id: deployment.id,
            object: "model" as const,
            created: Math.floor(deployment.createdAt / 1000),
            owned_by: account.email.split("@")[0] ?? "owner",
          },
        ],
      };
    },
    { detail: modelsDoc },
  );
}

import { Elysia } from "elysia";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { modelsDoc } from "./models.schemas.ts";

/**
 * The model list. `owned_by` is a fixed label, never derived from the owner's account: the key is public wherever
 * the widget is embedded, and an email's local part is personal data.
 */
export const MODEL_OWNER_LABEL = "docchat";

/** The deployment behind the key, as the one model (OpenAI `GET /v1/models`). */
export function modelsRoutes(state: RequestStates) {
  return new Elysia({ name: "models" }).get(
    "/api/v1/models",
    ({ request }) => {
      const { deployment } = state.gateOf(request);
      return {
        object: "list" as const,
        data: [
          {
            id: deployment.id,
            object: "model" as const,
            created: Math.floor(deployment.createdAt / 1000),
            owned_by: MODEL_OWNER_LABEL,
          },
        ],
      };
    },
    { detail: modelsDoc },
  );
}

import { Elysia } from "elysia";
import type { RequestStates } from "../request-state.ts";

/**
 * The model list. `owned_by` is a fixed label, never derived from the owner's account: the key is public wherever
 * the widget is embedded, and an email's local part is personal data.
 */
export const MODEL_OWNER_LABEL = "docchat";

export function openaiV1Routes(state: RequestStates) {
  return new Elysia({ name: "openai-v1" }).get("/api/v1/models", ({ request }) => {
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
  });
}

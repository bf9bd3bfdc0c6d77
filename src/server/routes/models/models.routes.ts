import { Elysia } from "elysia";
import type { RequestStates } from "../../pipeline/request-state.ts";

export function openaiV1Routes(state: RequestStates) {
  return new Elysia({ name: "openai-v1" }).get("/api/v1/models", ({ request }) => {
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
  });
}

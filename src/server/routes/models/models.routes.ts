import { Elysia } from "elysia";
import type { Deployment } from "../../../store/contract/index.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { modelsDoc } from "./models.schemas.ts";

/**
 * The model list. `owned_by` is a fixed label, never derived from the owner's account: the key is public wherever
 * the widget is embedded, and an email's local part is personal data.
 */
export const MODEL_OWNER_LABEL = "docchat";

/** What Response.json would say: the body is written out once per deployment and sent as text. */
const JSON_TYPE = "application/json;charset=utf-8";

function modelList(deployment: Deployment): string {
  return JSON.stringify({
    object: "list",
    data: [{ id: deployment.id, object: "model", created: Math.floor(deployment.createdAt / 1000), owned_by: MODEL_OWNER_LABEL }],
  });
}

/**
 * The deployment behind the key, as the one model (OpenAI `GET /v1/models`). The key cache hands out the same
 * deployment record while nothing changed, so its list is serialised once per record, not once per request.
 */
export function modelsRoutes(state: RequestStates) {
  const lists = new WeakMap<Deployment, string>();
  return new Elysia({ name: "models" }).get(
    "/api/v1/models",
    ({ request, set }) => {
      const { deployment } = state.gateOf(request);
      let list = lists.get(deployment);
      if (list === undefined) {
        list = modelList(deployment);
        lists.set(deployment, list);
      }
      set.headers["content-type"] = JSON_TYPE;
      return list;
    },
    { detail: modelsDoc },
  );
}

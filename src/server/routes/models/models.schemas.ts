import { publicDoc } from "../../openapi/public-doc.ts";
import { modelListSchema } from "../../openapi/public-schemas.ts";

/** How this route appears in the public OpenAPI document (openapi/public-openapi.ts). */
export const modelsDoc = publicDoc({
  tag: "Models",
  summary: "The deployment behind the key, as the one model.",
  ok: [{ schema: modelListSchema }],
  errors: [401, 403, 429],
});

import type {
  accountResponse,
  correctionsResponse,
  deploymentSchema,
  documentsResponse,
  leadSchema,
  reportResponse,
  sessionResponse,
} from "../../server/routes/owner/owner.schemas.ts";
import type {
  conversationResponse,
  conversationsResponse,
  erasureSchema,
  gapsResponse,
  policySchema,
  testSummaryResponse,
} from "../../server/routes/owner/owner-insight.schemas.ts";
import type { deliveriesResponse, webhookListResponse } from "../../server/routes/owner/owner-webhooks.schemas.ts";

/** Wire shapes of the owner API, straight from its route schemas (type-only: nothing of the server is bundled). */
export type Session = typeof sessionResponse.static;
export type Deployment = typeof deploymentSchema.static;
export type DocumentList = typeof documentsResponse.static;
export type DocumentItem = DocumentList["data"][number];
export type Corrections = typeof correctionsResponse.static;
export type Lead = typeof leadSchema.static;
export type Report = typeof reportResponse.static;
export type Account = typeof accountResponse.static;
export type WebhookList = typeof webhookListResponse.static;
export type WebhookEndpoint = WebhookList["data"][number];
export type DeliveryPage = typeof deliveriesResponse.static;
export type Delivery = DeliveryPage["data"][number];
export interface KeyOnce {
  api_key: string;
  key_prefix: string;
  warning: string;
}
export type ConversationList = typeof conversationsResponse.static;
export type ConversationSummary = ConversationList["data"][number];
export type Conversation = typeof conversationResponse.static;
export type Turn = Conversation["turns"][number];
export type Citation = Turn["citations"][number];
export type Gaps = typeof gapsResponse.static;
export type TestSummary = typeof testSummaryResponse.static;
export type Policy = typeof policySchema.static;
export type Erasure = typeof erasureSchema.static;

import { createHash, randomBytes } from "node:crypto";

export const CONVERSATION_PREFIX = "conv-";
export const COMPLETION_PREFIX = "chatcmpl-";

export const mintConversationId = () => `${CONVERSATION_PREFIX}${randomBytes(12).toString("hex")}`;
export const mintCompletionId = () => `${COMPLETION_PREFIX}${randomBytes(12).toString("hex")}`;

/**
 * A client-chosen thread key (`user`, or a conversation_id we did not mint) becomes a conv- id derived from
 * the deployment and the key: stable across turns, and never the same thread in two deployments.
 */
export function scopedConversationId(deploymentId: string, kind: "user" | "client", key: string): string {
  const h = createHash("sha256").update(`${deploymentId}\u0000${kind}\u0000${key}`).digest("hex");
  return `${CONVERSATION_PREFIX}${h.slice(0, 24)}`;
}

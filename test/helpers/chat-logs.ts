import type { Services } from "../../src/app.ts";

let seq = 0;

/**
 * Records one answered (or refused) turn through the store, as the chat pipeline does (nothing charged), so visitor
 * features (rating, handoff after a refusal, corrections) can be tested on their own, on either engine.
 */
export async function insertChatLog(
  services: Services,
  input: { deploymentId: string; conversationId?: string; question?: string; answer?: string; refused?: boolean; sources?: string[] },
): Promise<{ id: number; conversationId: string }> {
  const conversationId = input.conversationId ?? `conv-test-${++seq}-${Date.now()}`;
  const question = input.question ?? "What are the opening hours?";
  const { chatLogId } = await services.repos.chatLogs.record({
    deploymentId: input.deploymentId,
    accountId: 0,
    conversationId,
    completionId: `chatcmpl-test-${seq}`,
    endpoint: "v1.chat",
    question,
    searchQuery: question,
    answer: input.answer ?? (input.refused ? "I can't answer that from the documents." : "We are open 9 to 5."),
    sources: input.sources ?? [],
    promptTokens: 0,
    completionTokens: 0,
    refused: input.refused ?? false,
    correctionId: null,
    visitorEmail: null,
  });
  return { id: chatLogId, conversationId };
}

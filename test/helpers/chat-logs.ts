import type { Db } from "../../src/store/sqlite/db.ts";

let seq = 0;

/**
 * Writes one answered turn into chat_logs, as the chat pipeline does, so visitor features (rating, handoff
 * after a refusal, corrections) can be tested on their own.
 */
export function insertChatLog(
  db: Db,
  input: { deploymentId: string; conversationId?: string; question?: string; answer?: string; refused?: boolean; sources?: string[] },
): { id: number; conversationId: string } {
  const conversationId = input.conversationId ?? `conv-test-${++seq}-${Date.now()}`;
  const question = input.question ?? "What are the opening hours?";
  const row = db
    .query<{ id: number }, [string, string, string, string, string, string, string, number, number]>(
      `INSERT INTO chat_logs (deployment_id, conversation_id, completion_id, endpoint, question, search_query, answer, sources, refused, created_at)
       VALUES (?, ?, ?, 'v1.chat', ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .get(
      input.deploymentId,
      conversationId,
      `chatcmpl-test-${seq}`,
      question,
      question,
      input.answer ?? (input.refused ? "I can't answer that from the documents." : "We are open 9 to 5."),
      JSON.stringify(input.sources ?? []),
      input.refused ? 1 : 0,
      Date.now(),
    ) as { id: number };
  return { id: row.id, conversationId };
}

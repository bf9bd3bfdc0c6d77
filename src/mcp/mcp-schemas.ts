import { z } from "zod";

/** Where a passage is in its document: pages for PDFs, rows for CSVs, the heading path wherever there is one. */
export const citationShape = z.object({
  document: z.string().describe("document name without its extension"),
  document_id: z.string(),
  page_start: z.number().int().optional(),
  page_end: z.number().int().optional(),
  row_start: z.number().int().optional(),
  row_end: z.number().int().optional(),
  heading_path: z.string().optional(),
});

const passage = z.object({
  id: z.string().describe("the passage id, for fetch"),
  text: z.string().describe("the passage, verbatim"),
  citation: citationShape,
});

export const searchInput = {
  query: z.string().min(1).max(2000).describe("what to look for, in words the documents would use"),
  limit: z.number().int().min(1).max(20).optional().describe("how many passages (default 8)"),
};

export const searchOutput = {
  query: z.string(),
  grounded: z
    .boolean()
    .describe("whether the best passage covers the query well enough for an answer (ask would answer rather than refuse)"),
  results: z.array(
    passage.extend({
      title: z.string().describe("the document the passage is from"),
      score: z.number().describe("relevance 0..1"),
    }),
  ),
};

export const fetchInput = {
  id: z.string().min(1).max(40).describe("a passage id from search or ask"),
  neighbours: z.number().int().min(0).max(5).optional().describe("passages to include either side, in document order (default 1)"),
};

export const fetchOutput = {
  id: z.string(),
  title: z.string(),
  text: z.string().describe("the passage with its neighbours, in document order"),
  citation: citationShape,
  passages: z.array(passage.extend({ requested: z.boolean() })),
};

export const askInput = {
  question: z.string().min(1).max(4000).describe("the question, in the user's words"),
  conversation_id: z
    .string()
    .max(200)
    .optional()
    .describe("continue a conversation: the conversation_id of an earlier ask (follow-up questions are resolved against it)"),
};

export const askOutput = {
  status: z.enum(["answered", "refused"]),
  answer: z.string().nullable().describe("the grounded answer; null when refused"),
  refusal: z
    .object({ reason: z.literal("not_in_documents"), message: z.string() })
    .nullable()
    .describe("why there is no answer: the documents do not cover the question (no tokens were used)"),
  sources: z.array(z.string()).describe("the documents the answer stands on"),
  citations: z.array(passage.omit({ text: true }).extend({ text: z.string().optional() })),
  from_correction: z.boolean().describe("the answer is the owner's own correction for this question"),
  search_query: z.string().describe("the standalone question that was searched"),
  conversation_id: z.string(),
  chat_log_id: z.number().int(),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
};

import type { AppError } from "../errors/index.ts";
import type { RetrievalHit } from "../rag/retrieval.types.ts";
import type { Account, Citation, Deployment } from "../store/contract/index.ts";

export interface ChatMessageIn {
  role: "user" | "assistant" | "system";
  content: string;
}

/** One visitor turn as the edges hand it to the chat service. */
export interface ChatRequest {
  deployment: Deployment;
  account: Account;
  /** gated endpoint name, stored with the chat log */
  endpoint: string;
  /** the question in the visitor's words (last user message, or `message` / `msg`) */
  question: string;
  /** the request field that carried the question (`msg`, `message`, `messages[3].content`), named in a 400 */
  questionParam?: string;
  /** earlier messages sent with the request (style A); empty when the client relies on a thread (style B) */
  history: ChatMessageIn[];
  conversationId?: string;
  /** fallback thread id when conversationId is absent */
  user?: string;
  temperature?: number;
  maxTokens?: number;
  visitorEmail?: string;
  /** visitor language code (native stream) */
  lang?: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/**
 * What answer() streams. `sources` always comes first (before any text), then `delta`s, then exactly one
 * `done` — or one `error` when generation fails after the answer started. Failures before `sources` are
 * thrown instead, so an edge can still answer with a plain HTTP error.
 */
export type ChatEvent =
  | {
      type: "sources";
      conversationId: string;
      completionId: string;
      searchQuery: string;
      /** distinct document names, in hit order */
      sources: string[];
      /** the passages the answer stands on, with where they are in their documents ([] when it stands on none) */
      citations: Citation[];
      hits: RetrievalHit[];
      /** chunk ids of the hits a model is given to answer from (none for a refusal, a correction or a persona chat) */
      contextIds: number[];
      refused: boolean;
      /**
       * how sure the answer is: "high" when a sentence clearly answers, "low" when the closest passage only came near
       * (the extractive answer then says so); null for a refusal, a correction or a persona chat
       */
      confidence: "high" | "low" | null;
      /** the rewritten query was not grounded and the visitor's own wording was */
      retrievalFallback: boolean;
      correctionId: number | null;
    }
  | { type: "delta"; text: string }
  | { type: "done"; chatLogId: number; answer: string; usage: Usage; finishReason: "stop" | "length" }
  | { type: "error"; error: AppError };

export type SourcesEvent = Extract<ChatEvent, { type: "sources" }>;
export type DoneEvent = Extract<ChatEvent, { type: "done" }>;

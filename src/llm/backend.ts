export interface LlmMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Who a model call is for: the queue shares model capacity fairly between deployments and accounts. */
export interface Tenant {
  deploymentId: string;
  accountId: number;
}

export interface GenerateRequest {
  messages: LlmMessage[];
  tenant?: Tenant;
  temperature: number;
  maxTokens: number;
  signal?: AbortSignal;
  /** passages the answer must stand on (the extractive backend composes from these) */
  passages?: { text: string; source: string; headingPath?: string }[];
  /** the visitor's question in its original wording */
  question?: string;
  /** the standalone question that was searched (a follow-up resolved): the extractive backend quotes for it */
  searchQuery?: string;
  /** words an extractive answer must mention besides the question's focus (what an elliptic follow-up changed) */
  mustMention?: string[];
  /** the answer is only the closest passage found: an extractive answer says so */
  hedge?: boolean;
  /** the question's term weights in this deployment (stemmed term → IDF), for choosing sentences */
  termWeights?: Map<string, number>;
  /** the visitor's language (i18n/visitor-language.ts): a reply's fixed words are in it (English when absent) */
  lang?: string;
}

/** What an extractive answer quotes, known before it streams: the passages used become the answer's sources. */
export interface ComposedReply {
  text: string;
  /** indexes into `passages` */
  used: number[];
  truncated: boolean;
}

/**
 * Composes a quoted answer from passages (rag/compose-answer.ts): what the extractive backend streams. Passed in by
 * whoever builds the backend, so llm/ does not reach up into rag/.
 */
export type AnswerComposer = (input: {
  passages: NonNullable<GenerateRequest["passages"]>;
  question: string;
  maxTokens: number;
  weights?: Map<string, number>;
  mustMention?: string[];
}) => ComposedReply;

/** A plain, non-streaming completion, e.g. rewriting a follow-up into a standalone question. */
export interface CompleteRequest {
  messages: LlmMessage[];
  tenant?: Tenant;
  maxTokens: number;
  temperature: number;
  signal?: AbortSignal;
  /** overall deadline for this call; the backend's own total timeout applies when absent */
  timeoutMs?: number;
}

/**
 * Typed events streamed from a backend. A stream that runs to its end yields exactly one `done`, last.
 * When the caller aborts `signal`, the stream ends early without `done` and without throwing.
 */
export type GenerateEvent =
  | { type: "delta"; text: string }
  | { type: "done"; promptTokens: number; completionTokens: number; finishReason: "stop" | "length" };

export interface LlmBackend {
  readonly name: "extractive" | "openai" | "llama";
  /** Streams the answer. Throws AppError('backend_down') when the model cannot be reached or dies. */
  generate(req: GenerateRequest): AsyncIterable<GenerateEvent>;
  /** counts tokens with the model's own tokenizer where there is one */
  countTokens(text: string): Promise<number>;
  /** Backends that quote rather than generate say up front what they will quote (see ComposedReply). */
  compose?(req: GenerateRequest): ComposedReply;
  /** Returns the whole reply as one string; only backends with a real model offer it. */
  complete?(req: CompleteRequest): Promise<string>;
  close(): Promise<void>;
}

/**
 * The one definition of every setting: its doc, env var (DOCCHAT_*), CLI flag and default.
 * docs/configuration.md is generated from this table (scripts/gen-docs.ts).
 */
type Parse<T> = (raw: string) => T;

export interface Setting<T> {
  env: string;
  flag?: string;
  default: T;
  doc: string;
  parse: Parse<T>;
}

const str: Parse<string> = (raw) => raw;
const int =
  (min: number, max: number): Parse<number> =>
  (raw) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`must be an integer from ${min} to ${max}`);
    return n;
  };
const num =
  (min: number, max: number): Parse<number> =>
  (raw) => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n) || n < min || n > max) throw new Error(`must be a number from ${min} to ${max}`);
    return n;
  };
const bool: Parse<boolean> = (raw) => {
  const v = raw.toLowerCase();
  if (["1", "true", "on", "yes"].includes(v)) return true;
  if (["0", "false", "off", "no"].includes(v)) return false;
  throw new Error("must be on/off (true/false)");
};
const oneOf =
  <T extends string>(...values: T[]): Parse<T> =>
  (raw) => {
    if (!values.includes(raw as T)) throw new Error(`must be one of ${values.join(", ")}`);
    return raw as T;
  };
const metricsToken: Parse<string> = (raw) => {
  const v = raw.trim();
  if (v !== "" && (v.length < 16 || /\s/.test(v))) throw new Error("must be empty or at least 16 characters without spaces");
  return v;
};
const databaseUrl: Parse<string> = (raw) => {
  const v = raw.trim();
  if (v === "") return "";
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new Error("must be a postgres:// URL");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") throw new Error("must be a postgres:// URL");
  if (!u.hostname && !u.searchParams.get("host")) throw new Error("must name a host");
  return v;
};
const list: Parse<string[]> = (raw) =>
  raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** Mail header values come from config too: a CR or LF there would inject headers. */
const headerSafe: Parse<string> = (raw) => {
  if (/[\r\n]/.test(raw) || raw.trim() === "") throw new Error("must be one non-empty line");
  return raw.trim();
};
const smtpUrl: Parse<string> = (raw) => {
  if (raw.trim() === "") return "";
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new Error("must be a URL like smtp://user:pass@host:587 or smtps://host:465");
  }
  if (u.protocol !== "smtp:" && u.protocol !== "smtps:") throw new Error("must start with smtp:// or smtps://");
  if (!u.hostname) throw new Error("must name a host");
  return raw.trim();
};

const publicOrigin: Parse<string> = (raw) => {
  if (raw.trim() === "") return "";
  const u = URL.parse(raw.trim());
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) throw new Error("must be an http:// or https:// URL");
  return u.origin;
};

/** "low,high[,weight]": cosine at or below low counts as unrelated, at or above high as on-topic (weight 0.25 when omitted). */
const cosineRange: Parse<{ low: number; high: number; weight: number } | null> = (raw) => {
  if (raw.trim() === "" || raw.trim() === "none") return null;
  const [low, high, weight = 0.25] = raw.split(",").map((x) => Number(x.trim()));
  if (low === undefined || high === undefined || ![low, high, weight].every(Number.isFinite) || !(low < high) || weight < 0 || weight > 1) {
    throw new Error("must be low,high[,weight] with low < high and weight from 0 to 1, e.g. 0.45,0.75,0.25");
  }
  return { low, high, weight };
};

const setting = <T>(s: Setting<T>): Setting<T> => s;

export const definition = {
  databaseUrl: setting({
    env: "DOCCHAT_DATABASE_URL",
    flag: "--database",
    default: "",
    doc: "PostgreSQL (15+, with the pgvector extension) for every piece of state, shared by any number of nodes: postgres://user:password@host:5432/db. Empty: the embedded SQLite database in the data dir. See docs/scale-out.md.",
    parse: databaseUrl,
  }),
  databasePool: setting({
    env: "DOCCHAT_DATABASE_POOL",
    default: 10,
    doc: "PostgreSQL connections this node keeps at most (plus one for change notifications). Nodes × pool must stay under the server's max_connections.",
    parse: int(1, 500),
  }),
  dataDir: setting({
    env: "DOCCHAT_DATA",
    flag: "--data",
    default: "./data",
    doc: "Data directory (SQLite database, extracted sqlite-vec extension).",
    parse: str,
  }),
  host: setting({
    env: "DOCCHAT_HOST",
    flag: "--host",
    default: "127.0.0.1",
    doc: "Address to listen on. Use 0.0.0.0 to accept connections from other machines.",
    parse: str,
  }),
  port: setting({
    env: "DOCCHAT_PORT",
    flag: "--port",
    default: 8080,
    doc: "TCP port to listen on (0 picks a free port).",
    parse: int(0, 65535),
  }),
  trustedProxies: setting({
    env: "DOCCHAT_TRUSTED_PROXIES",
    flag: "--trusted-proxy",
    default: [] as string[],
    doc: "Comma-separated CIDRs of reverse proxies whose X-Forwarded-For is honoured (read right to left).",
    parse: list,
  }),
  maxBodyBytes: setting({
    env: "DOCCHAT_MAX_BODY_BYTES",
    default: 1_048_576,
    doc: "Largest JSON or form body accepted, in bytes (413 above).",
    parse: int(1024, 1 << 30),
  }),
  maxUploadBytes: setting({
    env: "DOCCHAT_MAX_UPLOAD_BYTES",
    default: 26_214_400,
    doc: "Largest document upload accepted, in bytes (413 above).",
    parse: int(1024, 1 << 30),
  }),
  maxConcurrentUploads: setting({
    env: "DOCCHAT_MAX_CONCURRENT_UPLOADS",
    default: 4,
    doc: "Document uploads parsed and stored at once, all accounts together. More wait their turn, accounts in turn (receiving a body takes no slot).",
    parse: int(1, 1000),
  }),
  uploadsPerAccount: setting({
    env: "DOCCHAT_UPLOADS_PER_ACCOUNT",
    default: 2,
    doc: "Of DOCCHAT_MAX_CONCURRENT_UPLOADS, how many one account may hold while other accounts' uploads wait.",
    parse: int(1, 1000),
  }),
  uploadBacklogPerAccount: setting({
    env: "DOCCHAT_UPLOAD_BACKLOG_PER_ACCOUNT",
    default: 64,
    doc: "Uploads one account may have in progress at once (arriving, waiting for a slot or being stored); one more is refused with 503 overloaded and Retry-After.",
    parse: int(1, 100_000),
  }),
  spoolMaxBytes: setting({
    env: "DOCCHAT_SPOOL_MAX_BYTES",
    default: 1_073_741_824,
    doc: "Bytes of upload bodies held in the spool folder at once (declared lengths; the largest upload when none is declared). An upload that would pass it, or leave less than twice the largest upload free on the disk, is refused with 503 overloaded and Retry-After.",
    parse: int(1024, 2 ** 50),
  }),
  uploadMinBytesPerSecond: setting({
    env: "DOCCHAT_UPLOAD_MIN_BYTES_PER_SECOND",
    default: 16_384,
    doc: "After its first DOCCHAT_UPLOAD_RATE_GRACE_SECONDS, an upload body must keep arriving at this average rate; a slower one is cut off with 408 upload_too_slow, so trickled uploads cannot hold the server.",
    parse: int(1, 1 << 30),
  }),
  uploadRateGraceSeconds: setting({
    env: "DOCCHAT_UPLOAD_RATE_GRACE_SECONDS",
    default: 10,
    doc: "Seconds an upload body may take before DOCCHAT_UPLOAD_MIN_BYTES_PER_SECOND applies (a slow start, a proxy's buffering).",
    parse: int(1, 3600),
  }),
  accountMaxDocuments: setting({
    env: "DOCCHAT_ACCOUNT_MAX_DOCUMENTS",
    default: 100_000,
    doc: "Storage quota: documents one account may keep across its deployments (bulk loads of thousands of files fit; the byte quota guards the disk); a push beyond it is refused with 403 storage_quota_exceeded.",
    parse: int(1, 10_000_000),
  }),
  accountMaxBytes: setting({
    env: "DOCCHAT_ACCOUNT_MAX_BYTES",
    default: 2_147_483_648,
    doc: "Storage quota: bytes of uploaded documents one account may keep across its deployments (403 storage_quota_exceeded beyond).",
    parse: int(1024, 2 ** 50),
  }),
  pushMaxDocuments: setting({
    env: "DOCCHAT_PUSH_MAX_DOCUMENTS",
    default: 1000,
    doc: "Storage share of the deployment key (POST /api/v1/documents): documents pushed with the key that one deployment may keep. Key pushes never count against the owner's quota (DOCCHAT_ACCOUNT_MAX_*); the owner can set another share per deployment. Beyond it: 403 push_quota_exceeded.",
    parse: int(0, 10_000_000),
  }),
  pushMaxBytes: setting({
    env: "DOCCHAT_PUSH_MAX_BYTES",
    default: 268_435_456,
    doc: "Storage share of the deployment key: bytes of documents pushed with the key that one deployment may keep (403 push_quota_exceeded beyond; the owner can set another share per deployment).",
    parse: int(0, 2 ** 50),
  }),
  maxPages: setting({ env: "DOCCHAT_MAX_PAGES", default: 2000, doc: "Largest number of PDF pages accepted.", parse: int(1, 100_000) }),
  trainWaitMs: setting({
    env: "DOCCHAT_TRAIN_WAIT_MS",
    default: 5000,
    doc: "How long a document push waits for training before answering 202 instead of 200.",
    parse: int(0, 600_000),
  }),
  trainingLeaseSeconds: setting({
    env: "DOCCHAT_TRAINING_LEASE_SECONDS",
    default: 60,
    doc: "With several nodes on PostgreSQL: how long a node's claim on a document it trains holds without renewal (renewed every third of it while it works). A node that dies leaves its documents to another node after this long.",
    parse: int(2, 3600),
  }),
  parseTimeoutMs: setting({
    env: "DOCCHAT_PARSE_TIMEOUT_MS",
    default: 60_000,
    doc: "CPU time allowed for parsing one document (its parser process's, on Linux; elsewhere the clock). On a busy machine a document waiting for the CPU is not charged for it; five times this on the clock stops a parser stuck without using the CPU. Past it: 422 document_too_complex.",
    parse: int(1000, 3_600_000),
  }),
  parseMemoryMb: setting({
    env: "DOCCHAT_PARSE_MEMORY_MB",
    default: 2048,
    doc: "Memory bound for the document parser process, in MiB.",
    parse: int(64, 65_536),
  }),
  parseWorkers: setting({
    env: "DOCCHAT_PARSE_WORKERS",
    default: 0,
    doc: "Parser processes kept running (0 = one per CPU core, at most 4).",
    parse: int(0, 64),
  }),
  parseRecycleAfter: setting({
    env: "DOCCHAT_PARSE_RECYCLE_AFTER",
    default: 200,
    doc: "A parser process is replaced after this many documents (bounds slow leaks in parser libraries).",
    parse: int(1, 1_000_000),
  }),
  parseRecycleRssMb: setting({
    env: "DOCCHAT_PARSE_RECYCLE_RSS_MB",
    default: 768,
    doc: "A parser process whose resident memory is above this many MiB after a document is replaced.",
    parse: int(64, 65_536),
  }),
  ocr: setting({
    env: "DOCCHAT_OCR",
    default: true,
    doc: "Read PDF pages that have no text layer (scanned pages) with offline OCR.",
    parse: bool,
  }),
  ocrMaxPages: setting({
    env: "DOCCHAT_OCR_MAX_PAGES",
    default: 50,
    doc: "Most pages of one PDF read with OCR; later image-only pages are reported, not read.",
    parse: int(0, 100_000),
  }),
  ocrTimeoutMs: setting({
    env: "DOCCHAT_OCR_TIMEOUT_MS",
    default: 120_000,
    doc: "Time allowed for OCR of one document; pages not reached by then are reported.",
    parse: int(1000, 3_600_000),
  }),
  ocrTessdata: setting({
    env: "DOCCHAT_OCR_TESSDATA",
    default: "",
    doc: "Folder with an English Tesseract model (eng.traineddata) to read scanned pages with instead of the bundled one (eng 4.0.0_best_int), e.g. /usr/share/tesseract-ocr/5/tessdata with Debian's tesseract-ocr-eng (tessdata_fast: about a quarter less CPU time a page at the same accuracy in bench/ocr.bench.ts).",
    parse: str,
  }),
  modelsDir: setting({
    env: "DOCCHAT_MODELS",
    flag: "--models",
    default: "./models",
    doc: "Folder searched for models: ONNX embedding folders, and GGUF chat, embedding and reranker files (told apart by their metadata).",
    parse: str,
  }),
  embedder: setting({
    env: "DOCCHAT_EMBEDDER",
    default: "auto" as "auto" | "none" | "onnx" | "openai" | "gguf",
    doc: "Embedder: auto (DOCCHAT_EMBEDDINGS_URL set: that server; else an ONNX model folder, else an embedding GGUF in the models folder; else keyword only), none (keyword only), onnx, openai (an OpenAI-compatible /embeddings server), gguf (in-process through node-llama-cpp).",
    parse: oneOf("auto", "none", "onnx", "openai", "gguf"),
  }),
  embedderModel: setting({
    env: "DOCCHAT_EMBEDDER_MODEL",
    default: "",
    doc: "Path of an ONNX sentence-embedding model folder or of an embedding .gguf file (overrides the models folder search).",
    parse: str,
  }),
  embeddingsUrl: setting({
    env: "DOCCHAT_EMBEDDINGS_URL",
    flag: "--embeddings-url",
    default: "",
    doc: "Base URL of an OpenAI-compatible embeddings server (POST {base}/embeddings), e.g. http://127.0.0.1:11434/v1 (Ollama).",
    parse: str,
  }),
  embeddingsModel: setting({
    env: "DOCCHAT_EMBEDDINGS_MODEL",
    flag: "--embeddings-model",
    default: "",
    doc: "Embedding model name on that server, e.g. nomic-embed-text. Recorded with the index: changing it needs docchat reindex.",
    parse: str,
  }),
  embeddingsApiKey: setting({
    env: "DOCCHAT_EMBEDDINGS_API_KEY",
    default: "",
    doc: "API key for the embeddings server (never logged; no flag, so it never shows in the process list).",
    parse: str,
  }),
  embeddingsBatchSize: setting({
    env: "DOCCHAT_EMBEDDINGS_BATCH_SIZE",
    default: 32,
    doc: "Texts per embeddings request.",
    parse: int(1, 2048),
  }),
  embeddingsConcurrency: setting({
    env: "DOCCHAT_EMBEDDINGS_CONCURRENCY",
    default: 2,
    doc: "Embeddings (and rerank) requests in flight at once per server (training and questions share them).",
    parse: int(1, 64),
  }),
  embeddingsTimeoutMs: setting({
    env: "DOCCHAT_EMBEDDINGS_TIMEOUT_MS",
    default: 30_000,
    doc: "Time allowed for one embeddings (or rerank) request before it is retried.",
    parse: int(100, 600_000),
  }),
  modelCircuitFailures: setting({
    env: "DOCCHAT_MODEL_CIRCUIT_FAILURES",
    default: 3,
    doc: "Consecutive failures (timeouts, refused connections, 5xx, oversized replies) after which a model server's circuit opens: embeddings and rerank calls then fail at once (answers use keyword retrieval, no rerank) and the chat model's with 503 backend_down, until a probe succeeds. Shown by doctor and in metrics.",
    parse: int(1, 1000),
  }),
  modelCircuitCoolDownMs: setting({
    env: "DOCCHAT_MODEL_CIRCUIT_COOLDOWN_MS",
    default: 30_000,
    doc: "How long an open circuit fails calls at once before one call goes through as a probe (half-open).",
    parse: int(100, 3_600_000),
  }),
  embeddingsRetries: setting({
    env: "DOCCHAT_EMBEDDINGS_RETRIES",
    default: 3,
    doc: "Retries of a failed embeddings request (timeouts, connection errors, 408/429/5xx), with exponential backoff; rerank requests retry at most once.",
    parse: int(0, 20),
  }),
  embeddingsQueryPrefix: setting({
    env: "DOCCHAT_EMBEDDINGS_QUERY_PREFIX",
    default: "auto",
    doc: "Text put before every question before it is embedded: auto (chosen from the model family: nomic search_query:, e5 query:, bge's instruction, ...), none, or the literal prefix.",
    parse: str,
  }),
  embeddingsDocumentPrefix: setting({
    env: "DOCCHAT_EMBEDDINGS_DOCUMENT_PREFIX",
    default: "auto",
    doc: "Text put before every passage before it is embedded: auto (from the model family: nomic search_document:, e5 passage:, ...), none, or the literal prefix. Changing it needs docchat reindex.",
    parse: str,
  }),
  embeddingsCosine: setting({
    env: "DOCCHAT_EMBEDDINGS_COSINE",
    default: null as { low: number; high: number; weight: number } | null,
    doc: "Lets the refusal gate use the embedder's cosine similarity: low,high[,weight] (cosine ≤ low unrelated, ≥ high on-topic; weight = its share of the relevance, 0.25 by default). Unset: embeddings improve ranking but the gate judges term coverage only. Measure your model with bench/retrieval.bench.ts before setting it; a reranker is the better judge.",
    parse: cosineRange,
  }),
  reranker: setting({
    env: "DOCCHAT_RERANKER",
    default: "auto" as "auto" | "none" | "http" | "gguf",
    doc: "Reranker of the fused top passages: auto (DOCCHAT_RERANK_URL set: that server; else a reranker GGUF in the models folder; else none), none, http, gguf. With a reranker, its score is what the refusal gate judges.",
    parse: oneOf("auto", "none", "http", "gguf"),
  }),
  rerankUrl: setting({
    env: "DOCCHAT_RERANK_URL",
    flag: "--rerank-url",
    default: "",
    doc: "Base URL of a rerank server (POST {base}/rerank): vLLM, llama.cpp's server, TEI, Jina/Cohere-style APIs.",
    parse: str,
  }),
  rerankModel: setting({
    env: "DOCCHAT_RERANK_MODEL",
    flag: "--rerank-model",
    default: "",
    doc: "Reranker model name on that server, or the path of a reranker .gguf file.",
    parse: str,
  }),
  rerankApiKey: setting({
    env: "DOCCHAT_RERANK_API_KEY",
    default: "",
    doc: "API key for the rerank server (never logged; no flag).",
    parse: str,
  }),
  rerankScores: setting({
    env: "DOCCHAT_RERANK_SCORES",
    default: "auto" as "auto" | "probability" | "logit",
    doc: "What the rerank server's scores are: auto (a response with any score outside 0..1 is read as logits and mapped through the sigmoid, else as probabilities), probability (TEI, vLLM, Jina, Cohere), logit (llama.cpp's server).",
    parse: oneOf("auto", "probability", "logit"),
  }),
  rerankCandidates: setting({
    env: "DOCCHAT_RERANK_CANDIDATES",
    default: 20,
    doc: "Fused passages handed to the reranker; the best DOCCHAT_TOP_K of them are kept.",
    parse: int(1, 200),
  }),
  rerankThreshold: setting({
    env: "DOCCHAT_RERANK_THRESHOLD",
    default: 0.5,
    doc: "Grounding gate with a reranker: the lowest rerank score (0..1, a relevance probability) at which a question counts as answerable. Used instead of DOCCHAT_REFUSAL_THRESHOLD while a reranker judges; a deployment's own threshold wins.",
    parse: num(0, 1),
  }),
  llm: setting({
    env: "DOCCHAT_LLM",
    default: "auto" as "auto" | "extractive" | "openai" | "llama",
    doc: "Answer backend: auto (openai when DOCCHAT_LLM_URL is set, llama when DOCCHAT_LLM_MODEL is a .gguf file, else extractive).",
    parse: oneOf("auto", "extractive", "openai", "llama"),
  }),
  llmUrl: setting({
    env: "DOCCHAT_LLM_URL",
    default: "",
    doc: "Base URL of an OpenAI-compatible upstream, e.g. http://127.0.0.1:11434/v1 (Ollama).",
    parse: str,
  }),
  llmModel: setting({ env: "DOCCHAT_LLM_MODEL", default: "", doc: "Upstream model name, or the path of a local .gguf file.", parse: str }),
  llmApiKey: setting({ env: "DOCCHAT_LLM_API_KEY", default: "", doc: "API key for the upstream (never logged).", parse: str }),
  llmThreads: setting({
    env: "DOCCHAT_LLM_THREADS",
    default: 0,
    doc: "CPU threads for the local GGUF model (0 = automatic).",
    parse: int(0, 256),
  }),
  llmContextTokens: setting({
    env: "DOCCHAT_LLM_CONTEXT_TOKENS",
    default: 4096,
    doc: "The chat model's context window in tokens. What an answer sends to the model (persona, passages, history, question) plus its max_tokens is cut to fit it; the local GGUF model is loaded with this context size. Raise it for a model server with a larger window.",
    parse: int(512, 1_048_576),
  }),
  llmTimeoutMs: setting({
    env: "DOCCHAT_LLM_TIMEOUT_MS",
    default: 120_000,
    doc: "Total time allowed for one answer from the model.",
    parse: int(1000, 3_600_000),
  }),
  llmFirstTokenTimeoutMs: setting({
    env: "DOCCHAT_LLM_FIRST_TOKEN_TIMEOUT_MS",
    default: 30_000,
    doc: "Time allowed until the model's first token.",
    parse: int(100, 600_000),
  }),
  llmConcurrency: setting({
    env: "DOCCHAT_LLM_CONCURRENCY",
    default: 2,
    doc: "Answers generated at once; more wait in the queue.",
    parse: int(1, 256),
  }),
  llmQueue: setting({
    env: "DOCCHAT_LLM_QUEUE",
    default: 32,
    doc: "Answers allowed to wait; beyond that requests fail fast with 503 overloaded.",
    parse: int(0, 10_000),
  }),
  llmQueuePerDeployment: setting({
    env: "DOCCHAT_LLM_QUEUE_PER_DEPLOYMENT",
    default: 8,
    doc: "Answers one deployment may have waiting; its next request fails fast with 503 overloaded, so one busy tenant cannot fill the queue for everyone.",
    parse: int(1, 10_000),
  }),
  llmQueuePerAccount: setting({
    env: "DOCCHAT_LLM_QUEUE_PER_ACCOUNT",
    default: 16,
    doc: "Answers one account may have waiting over all its deployments (waiting answers are served accounts-first, round-robin).",
    parse: int(1, 10_000),
  }),
  topK: setting({ env: "DOCCHAT_TOP_K", default: 5, doc: "Passages retrieved for each answer.", parse: int(1, 50) }),
  refusalThreshold: setting({
    env: "DOCCHAT_REFUSAL_THRESHOLD",
    default: 0.37,
    doc: "Grounding gate without a reranker (keyword only, or with embeddings): the lowest answerability (0..1) at which a question counts as answerable from the documents: for a question, the IDF-weighted share of its words found in one sentence that holds the kind of answer asked for (chosen in bench/answers.bench.ts; see docs/answers.md). A deployment's own threshold wins (deployment update --refusal-threshold).",
    parse: num(0, 1),
  }),
  vectorWeight: setting({
    env: "DOCCHAT_VECTOR_WEIGHT",
    default: 0.25,
    doc: "Hybrid retrieval: weight of the vector ranking in rank fusion, relative to the keyword ranking's 1 (0 = keyword only). 0.25 was the least harmful weight for the built-in embedders on SciFact; measure a real ONNX model with bench/retrieval.bench.ts before raising it.",
    parse: num(0, 10),
  }),
  vectorCacheMb: setting({
    env: "DOCCHAT_VECTOR_CACHE_MB",
    default: 256,
    doc: "Memory for the binary codes of deployments' vectors, searched in memory: about 400 bytes a chunk, so 100,000 chunks take about 37 MiB. The least recently searched deployment is dropped first. Embedded SQLite: deployments past 2,000 chunks; 0 = every search reads the codes through sqlite-vec (several times slower). PostgreSQL: each node holds its own copy, checked against the database at every search; 0, or a deployment over it, = pgvector's HNSW index (slower at scale).",
    parse: int(0, 65_536),
  }),
  answerMaxTokens: setting({
    env: "DOCCHAT_ANSWER_MAX_TOKENS",
    default: 512,
    doc: "Longest answer when a request sets no max_tokens (requests may ask for 1 to 4096).",
    parse: int(1, 4096),
  }),
  rewriteTimeoutMs: setting({
    env: "DOCCHAT_REWRITE_TIMEOUT_MS",
    default: 8000,
    doc: "Time allowed for the model to rewrite a follow-up into a standalone question; on timeout the deterministic rewrite is used.",
    parse: int(100, 120_000),
  }),
  nativeApi: setting({
    env: "DOCCHAT_NATIVE_API",
    default: true,
    doc: "Serve the native /api/chat, /api/stream, /api/faq and /api/feedback family.",
    parse: bool,
  }),
  smtpUrl: setting({
    env: "DOCCHAT_SMTP_URL",
    default: "",
    doc: "SMTP server for owner mail, smtp://user:pass@host:port or smtps://… (empty: mail off, leads are still stored).",
    parse: smtpUrl,
  }),
  mailFrom: setting({
    env: "DOCCHAT_MAIL_FROM",
    default: "docchat@localhost",
    doc: "From address of owner notification mail.",
    parse: headerSafe,
  }),
  mailPollMs: setting({
    env: "DOCCHAT_MAIL_POLL_MS",
    default: 5000,
    doc: "How often the mail outbox worker looks for due mail, in ms (new handoffs wake it at once).",
    parse: int(10, 3_600_000),
  }),
  mailMaxAttempts: setting({
    env: "DOCCHAT_MAIL_MAX_ATTEMPTS",
    default: 12,
    doc: "Delivery attempts before an outbox mail is dead-lettered (status dead, shown with the lead).",
    parse: int(1, 1000),
  }),
  mailRetryBaseMs: setting({
    env: "DOCCHAT_MAIL_RETRY_BASE_MS",
    default: 30_000,
    doc: "First retry delay of a failed mail, in ms; doubles per attempt, with jitter.",
    parse: int(1, 86_400_000),
  }),
  mailRetryMaxMs: setting({
    env: "DOCCHAT_MAIL_RETRY_MAX_MS",
    default: 3_600_000,
    doc: "Longest retry delay of a failed mail, in ms.",
    parse: int(1, 86_400_000),
  }),
  mailSendTimeoutMs: setting({
    env: "DOCCHAT_MAIL_SEND_TIMEOUT_MS",
    default: 30_000,
    doc: "Time allowed for one SMTP delivery, in ms; a claimed mail is retried after twice this if the process died.",
    parse: int(100, 600_000),
  }),
  webhookAllowPrivate: setting({
    env: "DOCCHAT_WEBHOOK_ALLOW_PRIVATE",
    default: false,
    doc: "Let webhook URLs reach loopback, link-local and private addresses (checked when an endpoint is saved and again on every delivery). Off: only public addresses.",
    parse: bool,
  }),
  webhookPollMs: setting({
    env: "DOCCHAT_WEBHOOK_POLL_MS",
    default: 2000,
    doc: "How often the webhook outbox worker looks for due deliveries, in ms (new events wake it at once).",
    parse: int(10, 3_600_000),
  }),
  webhookMaxAttempts: setting({
    env: "DOCCHAT_WEBHOOK_MAX_ATTEMPTS",
    default: 10,
    doc: "Delivery attempts before a webhook delivery is dead-lettered (status dead in the delivery log; the owner can redeliver it).",
    parse: int(1, 1000),
  }),
  webhookRetryBaseMs: setting({
    env: "DOCCHAT_WEBHOOK_RETRY_BASE_MS",
    default: 5000,
    doc: "First retry delay of a failed webhook delivery, in ms; doubles per attempt, with jitter.",
    parse: int(1, 86_400_000),
  }),
  webhookRetryMaxMs: setting({
    env: "DOCCHAT_WEBHOOK_RETRY_MAX_MS",
    default: 3_600_000,
    doc: "Longest retry delay of a failed webhook delivery, in ms.",
    parse: int(1, 86_400_000),
  }),
  webhookTimeoutMs: setting({
    env: "DOCCHAT_WEBHOOK_TIMEOUT_MS",
    default: 10_000,
    doc: "Time allowed for one webhook delivery (connect, send, response), in ms; a receiver slower than this is retried.",
    parse: int(100, 120_000),
  }),
  webhookBalanceLow: setting({
    env: "DOCCHAT_WEBHOOK_BALANCE_LOW",
    default: 10_000,
    doc: "Token balance below which an answer's debit sends balance.low to the account's deployments' webhooks (once per crossing).",
    parse: int(0, 1_000_000_000_000),
  }),
  rateLimitScale: setting({
    env: "DOCCHAT_RATE_LIMIT_SCALE",
    default: 1,
    doc: "Multiplies every per-minute rate limit (1 = the documented limits). Only for load tests and benchmarks.",
    parse: num(0.001, 1_000_000),
  }),
  shutdownTimeoutMs: setting({
    env: "DOCCHAT_SHUTDOWN_TIMEOUT_MS",
    default: 10_000,
    doc: "On SIGTERM/SIGINT, how long in-flight requests and streams may take to finish before they are cut off.",
    parse: int(0, 600_000),
  }),
  publicUrl: setting({
    env: "DOCCHAT_PUBLIC_URL",
    default: "",
    doc: "Public origin of this service, e.g. https://chat.example.com (empty: taken from each request's Host). Owner console requests must come from it; https makes the session cookie Secure.",
    parse: publicOrigin,
  }),
  metricsToken: setting({
    env: "DOCCHAT_METRICS_TOKEN",
    default: "",
    doc: "Turns on GET /metrics (Prometheus text format) on the service's port, readable only with `Authorization: Bearer <this token>` (at least 16 characters; never logged). Empty: /metrics answers 404.",
    parse: metricsToken,
  }),
  sessionIdleSeconds: setting({
    env: "DOCCHAT_SESSION_IDLE_SECONDS",
    default: 1800,
    doc: "Owner console: a session unused for this long ends (idle timeout).",
    parse: int(1, 31_536_000),
  }),
  sessionMaxSeconds: setting({
    env: "DOCCHAT_SESSION_MAX_SECONDS",
    default: 43_200,
    doc: "Owner console: a session ends this long after sign-in however active it is (absolute timeout).",
    parse: int(1, 31_536_000),
  }),
  logLevel: setting({
    env: "DOCCHAT_LOG_LEVEL",
    default: "info" as "debug" | "info" | "warn" | "error" | "silent",
    doc: "Log level.",
    parse: oneOf("debug", "info", "warn", "error", "silent"),
  }),
};

export type Definition = typeof definition;
export type Config = { [K in keyof Definition]: Definition[K]["default"] };

/**
 * Instruction prefixes the model authors require for asymmetric search (a short query against long passages);
 * without them retrieval quality drops. Chosen from the model's name (ONNX folder, GGUF file or the name a
 * server knows it by); DOCCHAT_EMBEDDINGS_QUERY_PREFIX / _DOCUMENT_PREFIX override them.
 */
export interface ModelPrefixes {
  query: string;
  document: string;
}

const BGE_QUERY = "Represent this sentence for searching relevant passages: ";

const KNOWN_PREFIXES: { pattern: RegExp; query: string; document: string }[] = [
  // bge-m3 and the multilingual bge models need no instruction; the English v1.5 ones take one on the query.
  { pattern: /bge-m3|bge-multilingual/i, query: "", document: "" },
  { pattern: /bge-.*en|bge-(small|base|large)(?!.*zh)/i, query: BGE_QUERY, document: "" },
  { pattern: /(^|[-_/:])(multilingual-)?e5-/i, query: "query: ", document: "passage: " },
  { pattern: /nomic-embed-text/i, query: "search_query: ", document: "search_document: " },
  { pattern: /snowflake-arctic-embed|mxbai-embed-large/i, query: BGE_QUERY, document: "" },
  {
    pattern: /qwen3-embedding/i,
    query: "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: ",
    document: "",
  },
];

/** The prefixes for a model name; none for a model this table does not know. */
export function prefixesFor(modelName: string): ModelPrefixes {
  const known = KNOWN_PREFIXES.find((k) => k.pattern.test(modelName));
  return { query: known?.query ?? "", document: known?.document ?? "" };
}

/** Applies explicit overrides (undefined = keep the model family's prefix; "" = no prefix). */
export function resolvePrefixes(modelName: string, override: { query?: string; document?: string }): ModelPrefixes {
  const known = prefixesFor(modelName);
  return { query: override.query ?? known.query, document: override.document ?? known.document };
}

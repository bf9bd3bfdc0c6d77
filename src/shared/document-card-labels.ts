/** The heading path of a document's card chunk (ingest/document-card.ts writes it; rag/ reads it). */
export const CARD_HEADING = "Document card";
/** the card's hidden field: what the document is about, so a question naming its subject finds its card */
export const CARD_KEYWORDS = "Keywords";

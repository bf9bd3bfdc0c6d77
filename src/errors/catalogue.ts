/**
 * The one catalogue of error codes. `code` is stable and clients branch on it; `message` is safe to show a
 * visitor and never reveals internals, keys or the owner's credit situation.
 */
export const errorCatalogue = {
  bad_request: { status: 400, type: "invalid_request_error", message: "The request is malformed." },
  sources_unsupported: {
    status: 400,
    type: "invalid_request_error",
    message: "This assistant does not return sources.",
  },
  contextual_unsupported: {
    status: 400,
    type: "invalid_request_error",
    message: "This assistant does not support contextual answers.",
  },
  url_not_allowed: {
    status: 400,
    type: "invalid_request_error",
    message: "This URL cannot receive webhooks: it must lead to a public address.",
  },
  bad_key: { status: 401, type: "authentication_error", message: "The API key is invalid or disabled." },
  not_published: { status: 401, type: "authentication_error", message: "This assistant is not available." },
  no_tokens: {
    status: 402,
    type: "insufficient_quota",
    message: "The assistant is temporarily unavailable. Please try again later.",
  },
  account_disabled: { status: 403, type: "permission_error", message: "This assistant is not available." },
  ip_restricted: {
    status: 403,
    type: "permission_error",
    message: "Requests from this address are not allowed for this assistant.",
  },
  push_disabled: {
    status: 403,
    type: "permission_error",
    message: "Pushing documents with this key is turned off for this assistant.",
  },
  documents_access_disabled: {
    status: 403,
    type: "permission_error",
    message: "Listing and removing documents with this key is turned off for this assistant. Its owner can turn it on.",
  },
  storage_quota_exceeded: {
    status: 403,
    type: "insufficient_quota",
    message: "The account's document storage is full. Remove documents or ask the operator for a larger quota.",
  },
  push_quota_exceeded: {
    status: 403,
    type: "insufficient_quota",
    message: "The storage for documents pushed with this key is full. Remove pushed documents, or ask the owner for a larger share.",
  },
  owner_document: {
    status: 403,
    type: "permission_error",
    message: "This document was added by the owner; the API key can only change documents pushed with a key.",
  },
  not_trained: { status: 404, type: "not_found_error", message: "This assistant has no trained documents yet." },
  not_found: { status: 404, type: "not_found_error", message: "The requested item was not found." },
  method_not_allowed: { status: 405, type: "invalid_request_error", message: "This method is not allowed here." },
  not_acceptable: {
    status: 406,
    type: "invalid_request_error",
    message: "The Accept header must allow the response's content types.",
  },
  unsupported_media_type: { status: 415, type: "invalid_request_error", message: "Unsupported Content-Type for this endpoint." },
  handoff_disabled: {
    status: 403,
    type: "permission_error",
    message: "Contacting a person is not available for this assistant.",
  },
  handoff_not_offered: {
    status: 409,
    type: "invalid_request_error",
    message: "Contacting a person is offered only after a question the assistant could not answer.",
  },
  upload_too_slow: {
    status: 408,
    type: "invalid_request_error",
    message: "The upload arrived too slowly and was cut off. Please try again on a faster connection.",
  },
  payload_too_large: { status: 413, type: "invalid_request_error", message: "The request or file is too large." },
  request_header_too_large: {
    status: 431,
    type: "invalid_request_error",
    message: "The request's address or headers are too large.",
  },
  unsupported_document: {
    status: 415,
    type: "invalid_request_error",
    message: "Unsupported document type. Upload PDF, DOCX, TXT or CSV.",
  },
  document_unreadable: { status: 422, type: "invalid_request_error", message: "The document could not be read." },
  document_encrypted: {
    status: 422,
    type: "invalid_request_error",
    message: "The document is encrypted. Upload an unencrypted copy.",
  },
  document_too_complex: {
    status: 422,
    type: "invalid_request_error",
    message:
      "The document needs more memory or processing time to read than this server allows for one document. Split it into smaller files.",
  },
  parse_failed: {
    status: 503,
    type: "server_error",
    message: "The document could not be read because of a problem on the server, not with the file. Please try again shortly.",
  },
  no_extractable_text: {
    status: 422,
    type: "invalid_request_error",
    message: "The document contains no extractable text (it may be scanned images).",
  },
  ocr_unavailable: {
    status: 422,
    type: "invalid_request_error",
    message:
      "The document's pages are scanned images and OCR is not available in this build of docchat (the single-file binary cannot load the OCR engine); run docchat from its npm/source install to read scanned PDFs.",
  },
  rate_limited: { status: 429, type: "rate_limit_error", message: "Too many requests. Please slow down." },
  internal_error: { status: 500, type: "server_error", message: "Something went wrong. Please try again." },
  training_failed: {
    status: 500,
    type: "server_error",
    message: "The document was stored, but training it failed. Try again; if it keeps failing, the server's log says why.",
  },
  backend_down: {
    status: 503,
    type: "server_error",
    message: "The assistant is temporarily unavailable. Please try again shortly.",
  },
  database_unavailable: {
    status: 503,
    type: "server_error",
    message: "The service can't reach its database right now. Please try again shortly.",
  },
  overloaded: {
    status: 503,
    type: "server_error",
    message: "The assistant is busy. Please try again shortly.",
  },
  unauthorized: { status: 401, type: "authentication_error", message: "Sign in required." },
  forbidden: { status: 403, type: "permission_error", message: "This request is not allowed." },
  conflict: { status: 409, type: "invalid_request_error", message: "The request conflicts with the current state." },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

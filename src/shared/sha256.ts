import { createHash } from "node:crypto";

/** The SHA-256 of a text (UTF-8) in hex: chunk text hashes (the embedding cache's key), session id hashes. */
export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

import { join } from "node:path";

/** ../shared beside the repository: public evaluation data and real documents, read by path, never copied. */
export const SHARED = join(import.meta.dir, "../../../shared");
export const sharedDoc = (rel: string) => join(SHARED, "data/docs", rel);
export const sharedModel = (rel: string) => join(SHARED, "models", rel);
export const fixture = (rel: string) => join(import.meta.dir, "../fixtures", rel);

import { appError } from "../../errors/index.ts";

/** NUL (PostgreSQL refuses it in text) and unpaired surrogates (no UTF-8 for them): refused at the edge, on every engine. */
const unstorable = (s: string) => s.includes("\0") || !s.isWellFormed();

/** The path (`messages[2].content`, `persona`) of the first string in `value` that could not be stored, or null. */
export function unstorableAt(value: unknown, path = ""): string | null {
  if (typeof value === "string") return unstorable(value) ? path || "body" : null;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const at = unstorableAt(v, `${path}[${i}]`);
      if (at) return at;
    }
    return null;
  }
  if (value && typeof value === "object" && !(value instanceof Blob)) {
    for (const [k, v] of Object.entries(value)) {
      const at = unstorableAt(v, path ? `${path}.${k}` : k) ?? (unstorable(k) ? path || "body" : null);
      if (at) return at;
    }
  }
  return null;
}

/** Throws 400 bad_request naming the field when a body or query holds text that could not be stored. */
export function refuseUnstorable(value: unknown): void {
  const param = unstorableAt(value);
  if (param)
    throw appError("bad_request", {
      param,
      message: `${param} contains a character that cannot be stored (a NUL character or an unpaired surrogate).`,
    });
}

/** A query string's parameters (without "?"), decoded, as an object for refuseUnstorable. */
export function queryOf(query: string): Record<string, string> {
  return query === "" ? {} : Object.fromEntries(new URLSearchParams(query));
}

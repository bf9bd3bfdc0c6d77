import { appError } from "../errors/index.ts";
import { isValidEmail } from "../shared/email.ts";

export const VISITOR_LIMITS = { email: 254, name: 200, message: 4000, conversationId: 200, answer: 8000 } as const;

const bad = (param: string, message: string) => appError("bad_request", { param, message });

// Line breaks (CR, LF, U+2028/9) and other control characters: none may reach a mail header or a CSV row unasked.
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;
const CONTROL_EXCEPT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** A visitor's email address: one line, no control characters, a plausible address, at most 254 characters. */
export function visitorEmail(raw: string, param = "email"): string {
  const email = raw.trim();
  if (CONTROL.test(email)) throw bad(param, "The email address must be a single line.");
  if (email.length > VISITOR_LIMITS.email || !isValidEmail(email)) throw bad(param, "A valid email address is required.");
  return email;
}

/** Short visitor text (a name): one line, no control characters, capped. */
export function singleLine(raw: string, param: string, max: number): string {
  const v = raw.trim();
  if (CONTROL.test(v)) throw bad(param, `${param} must be a single line without control characters.`);
  if (v.length > max) throw bad(param, `${param} must be at most ${max} characters.`);
  return v;
}

/** Free visitor text (a message): line breaks and tabs allowed, other control characters refused, capped. */
export function multiLine(raw: string, param: string, max: number): string {
  const v = raw.trim();
  if (CONTROL_EXCEPT_TEXT.test(v)) throw bad(param, `${param} must not contain control characters.`);
  if (v.length > max) throw bad(param, `${param} must be at most ${max} characters.`);
  return v;
}

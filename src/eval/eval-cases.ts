import { appError } from "../errors/index.ts";

/**
 * An evaluation case, in the format of `shared/data/dev/answers/cases.json` (documented in docs/eval.md):
 * a question (with earlier turns for a follow-up) and either the short strings a right answer contains
 * (`kind: "answer"`) or nothing (`kind: "refuse"`: the documents do not answer it).
 */
export interface EvalCase {
  id: string;
  kind: "answer" | "refuse";
  /** how the question is asked: own, paraphrase, table, metadata, follow-up, language, or any owner label */
  style: string;
  question: string;
  history: { role: "user" | "assistant"; content: string }[];
  expectAny: string[];
  /** the document (name without extension) that holds the answer; "" when none does */
  doc: string;
}

export const MAX_CASES = 2000;
const MAX_TEXT = 8000;

const fail = (param: string, message: string) => appError("bad_request", { message, param });

function text(v: unknown, param: string, opts: { required?: boolean } = {}): string {
  if (v === undefined || v === null) {
    if (opts.required) throw fail(param, `${param} is required.`);
    return "";
  }
  if (typeof v !== "string") throw fail(param, `${param} must be a string.`);
  if (v.length > MAX_TEXT) throw fail(param, `${param} is longer than ${MAX_TEXT} characters.`);
  if (opts.required && v.trim() === "") throw fail(param, `${param} must not be empty.`);
  return v;
}

function one(raw: unknown, i: number): EvalCase {
  const at = `cases[${i}]`;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw fail(at, `${at} must be an object.`);
  const c = raw as Record<string, unknown>;
  const kind = c.kind ?? "answer";
  if (kind !== "answer" && kind !== "refuse") throw fail(`${at}.kind`, `${at}.kind must be "answer" or "refuse".`);
  const expect = c.expect_any ?? [];
  if (!Array.isArray(expect) || expect.some((e) => typeof e !== "string" || e.trim() === ""))
    throw fail(`${at}.expect_any`, `${at}.expect_any must be a list of non-empty strings.`);
  if (kind === "answer" && expect.length === 0)
    throw fail(`${at}.expect_any`, `${at}.expect_any needs at least one string for an answer case.`);
  const history = c.history ?? [];
  if (!Array.isArray(history)) throw fail(`${at}.history`, `${at}.history must be a list of messages.`);
  return {
    id: text(c.id, `${at}.id`) || `case-${i + 1}`,
    kind,
    style: text(c.style, `${at}.style`) || "unstyled",
    question: text(c.question, `${at}.question`, { required: true }),
    history: history.map((m, j) => {
      const p = `${at}.history[${j}]`;
      const role = (m as { role?: unknown })?.role;
      if (role !== "user" && role !== "assistant") throw fail(`${p}.role`, `${p}.role must be "user" or "assistant".`);
      return { role, content: text((m as { content?: unknown }).content, `${p}.content`, { required: true }) };
    }),
    expectAny: expect as string[],
    doc: text(c.doc, `${at}.doc`),
  };
}

/** Validates a cases document (a JSON array, or `{cases: [...]}`); a bad case is a 400 naming its path. */
export function parseCases(raw: unknown): EvalCase[] {
  const list = Array.isArray(raw) ? raw : (raw as { cases?: unknown } | null)?.cases;
  if (!Array.isArray(list)) throw fail("cases", "Expected a JSON array of cases (or an object with a `cases` array).");
  if (list.length === 0) throw fail("cases", "There are no cases to run.");
  if (list.length > MAX_CASES) throw fail("cases", `At most ${MAX_CASES} cases can run at once.`);
  const cases = list.map(one);
  const ids = new Set<string>();
  for (const [i, c] of cases.entries()) {
    if (ids.has(c.id)) throw fail(`cases[${i}].id`, `Case id "${c.id}" is used twice.`);
    ids.add(c.id);
  }
  return cases;
}

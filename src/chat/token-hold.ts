import { appError } from "../errors/index.ts";
import type { AccountsStore } from "../store/contract/index.ts";

/**
 * Tokens held for an answer while it is written (issue 20, N8): reserved before any model runs, settled by the
 * chat log's record (the debit and the release in one transaction), or released when nothing was recorded. What a
 * model may read and write is cut to what is held, so concurrent answers never spend more than the balance.
 */
export interface TokenHold {
  id: number;
  amount: number;
  /** true once the chat log's record took it (and released it with the debit) */
  settled: boolean;
}

/** A quoting answer holds its max_tokens; it can be written in as few as this. */
export const MIN_QUOTE_TOKENS = 16;
/** A model's answer holds its context window; with less than this free, it is not started. */
export const MIN_MODEL_TOKENS = 512;
/** A follow-up rewritten by the model: its short prompt (four turns, clipped) and reply, held on top. */
export const REWRITE_HOLD_TOKENS = 1500;

/** Holds up to `want` tokens (at least `minimum`), or refuses with no_tokens. */
export async function holdTokens(
  accounts: AccountsStore,
  input: { accountId: number; want: number; minimum: number; ttlMs: number },
): Promise<TokenHold> {
  const h = await accounts.reserve(input.accountId, Math.max(input.want, input.minimum), input.minimum, Date.now() + input.ttlMs);
  if (!h) throw appError("no_tokens");
  return { ...h, settled: false };
}

import { randomBytes } from "node:crypto";
import { appError } from "../errors/index.ts";
import { sha256Hex } from "../shared/sha256.ts";
import type { Account, AccountsStore, LoginAttemptsStore, OwnerSessionsStore } from "../store/contract/index.ts";

/**
 * Failed sign-ins per rolling minute: for one email from one address (whether or not the account exists), and
 * from one address over all emails; and per rolling quarter hour for one email from all addresses, so guessers
 * spread over many addresses are stopped too. That last limit spares the addresses the account signed in from in
 * the last 30 days, so strangers cannot lock the owner out; the operator clears a limit with `docchat account
 * unlock`.
 */
export const LOGIN_LIMITS = {
  perAccountAndIp: 5,
  perIp: 20,
  windowMs: 60_000,
  perAccount: 20,
  accountWindowMs: 15 * 60_000,
  knownForMs: 30 * 24 * 3600_000,
} as const;
export const PASSWORD_MIN = 8;
const PASSWORD_MAX = 1024;

export const hashSessionId = sha256Hex;

export interface SessionContext {
  account: Account;
  idHash: string;
  expiresAt: number;
}

const badLogin = () => appError("unauthorized", { message: "The email or password is incorrect." });

/**
 * Owner sign-in and sessions. A wrong password and an unknown email take the same path (an Argon2id verify,
 * against a dummy hash when there is no account) and end in the same error, so neither the answer nor its
 * timing tells which accounts exist.
 */
export function createSessionsService(deps: {
  accounts: AccountsStore;
  sessions: OwnerSessionsStore;
  attempts: LoginAttemptsStore;
  idleMs: number;
  maxMs: number;
  now?: () => number;
  /** the password check (Bun's Argon2id verify); a test wraps it to see that every path runs one */
  verify?: (password: string, hash: string) => Promise<boolean>;
}) {
  const now = deps.now ?? Date.now;
  const verify = deps.verify ?? ((password: string, hash: string) => Bun.password.verify(password, hash));
  let dummy: Promise<string> | null = null;
  const dummyHash = () => {
    dummy ??= Bun.password.hash(randomBytes(24).toString("base64"), { algorithm: "argon2id" });
    return dummy;
  };

  /** Refuses when this email+address or this address used up its failures; else records the attempt. */
  const throttle = async (email: string, ip: string): Promise<void> => {
    const at = now();
    const since = at - LOGIN_LIMITS.windowMs;
    const verdict = await deps.attempts.attempt(email, ip, at, since, {
      pair: LOGIN_LIMITS.perAccountAndIp,
      ip: LOGIN_LIMITS.perIp,
      account: { limit: LOGIN_LIMITS.perAccount, since: at - LOGIN_LIMITS.accountWindowMs, knownSince: at - LOGIN_LIMITS.knownForMs },
    });
    if (!verdict.allowed) {
      const window = verdict.by === "account" ? LOGIN_LIMITS.accountWindowMs : LOGIN_LIMITS.windowMs;
      throw appError("rate_limited", {
        message:
          verdict.by === "account"
            ? "Too many sign-in attempts for this account. Sign in from an address you used before, or wait and try again."
            : "Too many sign-in attempts. Wait a minute and try again.",
        headers: { "retry-after": String(Math.max(1, Math.ceil(((verdict.oldest ?? at) + window - at) / 1000))) },
      });
    }
    if (Math.random() < 0.01) await deps.attempts.prune(at - LOGIN_LIMITS.accountWindowMs, at - LOGIN_LIMITS.knownForMs);
  };

  return {
    idleMs: deps.idleMs,
    maxMs: deps.maxMs,
    async login(input: { email: string; password: string; clientIp: string }): Promise<{ token: string; session: SessionContext }> {
      const email = input.email.trim().toLowerCase();
      await throttle(email, input.clientIp);
      const found = email ? await deps.accounts.passwordHash(email) : null;
      const hash = found?.hash ?? (await dummyHash());
      const ok = input.password.length <= PASSWORD_MAX && (await verify(input.password, hash).catch(() => false));
      if (!ok || !found?.hash) throw badLogin();
      const account = await deps.accounts.findById(found.id);
      if (!account) throw badLogin();
      if (account.disabled) throw appError("forbidden", { message: "This account is disabled." });
      await deps.attempts.succeeded(email, input.clientIp);
      const token = randomBytes(32).toString("base64url");
      const at = now();
      const session = { idHash: hashSessionId(token), accountId: account.id, createdAt: at, lastSeenAt: at, expiresAt: at + deps.maxMs };
      await deps.sessions.purge(at, deps.idleMs);
      await deps.sessions.create(session);
      return { token, session: { account, idHash: session.idHash, expiresAt: session.expiresAt } };
    },

    /** The session behind a cookie value, or null when unknown, idle too long, past its end or disabled. */
    async authenticate(token: string | null): Promise<SessionContext | null> {
      if (!token || token.length > 200) return null;
      const idHash = hashSessionId(token);
      const s = await deps.sessions.find(idHash);
      if (!s) return null;
      const at = now();
      if (at >= s.expiresAt || at - s.lastSeenAt >= deps.idleMs) {
        await deps.sessions.remove(idHash);
        return null;
      }
      const account = await deps.accounts.findById(s.accountId);
      if (!account || account.disabled) return null;
      await deps.sessions.touch(idHash, at);
      return { account, idHash, expiresAt: s.expiresAt };
    },

    async logout(token: string | null): Promise<void> {
      if (token) await deps.sessions.remove(hashSessionId(token));
    },

    /** Checks the current password, stores the new one and signs every other session out. */
    async changePassword(ctx: SessionContext, current: string, next: string): Promise<void> {
      const found = await deps.accounts.passwordHash(ctx.account.email);
      const ok = !!found?.hash && current.length <= PASSWORD_MAX && (await verify(current, found.hash).catch(() => false));
      if (!ok) throw appError("bad_request", { param: "current_password", message: "The current password is incorrect." });
      if (next.length < PASSWORD_MIN || next.length > PASSWORD_MAX) {
        throw appError("bad_request", {
          param: "new_password",
          message: `The new password must have ${PASSWORD_MIN}–${PASSWORD_MAX} characters.`,
        });
      }
      await deps.accounts.setPasswordHash(ctx.account.id, await Bun.password.hash(next, { algorithm: "argon2id" }));
      await deps.sessions.removeForAccount(ctx.account.id, ctx.idHash);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

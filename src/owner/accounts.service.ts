import { appError } from "../errors/index.ts";
import { isValidEmail } from "../shared/email.ts";
import type { AccountsStore } from "../store/contract/index.ts";

export { isValidEmail };

export function createAccountsService(deps: { accounts: AccountsStore }) {
  const { accounts } = deps;
  return {
    async create(input: { email: string; password?: string; tokens?: number }) {
      const email = input.email.trim();
      if (!isValidEmail(email)) throw appError("bad_request", { message: "A valid email address is required.", param: "email" });
      if (input.password !== undefined && input.password.length < 8) {
        throw appError("bad_request", { message: "The password must have at least 8 characters.", param: "password" });
      }
      if (await accounts.findByEmail(email))
        throw appError("conflict", { message: "An account with this email already exists.", param: "email" });
      const tokens = input.tokens ?? 0;
      if (!Number.isInteger(tokens) || tokens < 0)
        throw appError("bad_request", { message: "tokens must be a whole number ≥ 0.", param: "tokens" });
      const hash = input.password ? await Bun.password.hash(input.password, { algorithm: "argon2id" }) : null;
      return accounts.create({ email, passwordHash: hash, tokens });
    },
    async getByEmailOrThrow(email: string) {
      const a = await accounts.findByEmail(email.trim());
      if (!a) throw appError("not_found", { message: `No account with email ${email}.`, param: "account" });
      return a;
    },
    async setTokens(email: string, tokens: number) {
      if (!Number.isInteger(tokens) || tokens < 0)
        throw appError("bad_request", { message: "tokens must be a whole number ≥ 0.", param: "tokens" });
      const a = await this.getByEmailOrThrow(email);
      return accounts.setTokens(a.id, tokens);
    },
    /** The account's latest balance changes, newest first. */
    ledger(accountId: number, limit: number) {
      return accounts.ledger(accountId, limit);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;

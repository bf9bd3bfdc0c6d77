/**
 * Sign-in throttling is exact on both engines, also for attempts that arrive at once (on PostgreSQL they run truly
 * in parallel on several connections): one address gets its five tries at one email, not more.
 */
import { expect, test } from "bun:test";
import { isAppError } from "../../src/errors/index.ts";
import { LOGIN_LIMITS } from "../../src/owner/sessions.service.ts";
import { testSessions } from "../helpers/owner-sessions.ts";
import { describeStores, type StoreContext } from "../helpers/stores.ts";
import { uniq } from "../helpers/visitor-seed.ts";

/** A new owner, and wrong passwords for it sent all at once, one per client address given: how each one ended. */
async function wrongPasswordsAtOnce(ctx: StoreContext, clientIps: string[]): Promise<string[]> {
  const { repos } = ctx.store();
  const email = `${uniq("owner")}@example.com`;
  await repos.accounts.create({ email, passwordHash: await Bun.password.hash("the right password"), tokens: 0 });
  const sessions = testSessions(repos);
  return Promise.all(
    clientIps.map((clientIp, i) =>
      sessions.login({ email, password: `guess ${i}`, clientIp }).then(
        () => "signed in",
        (e: unknown) => (isAppError(e) ? e.code : String(e)),
      ),
    ),
  );
}

describeStores("sign-in throttling", (ctx) => {
  test("twenty wrong passwords at once from one address: exactly five are tried, fifteen are throttled", { timeout: 120_000 }, async () => {
    const outcomes = await wrongPasswordsAtOnce(
      ctx,
      Array.from({ length: 20 }, () => "198.51.100.9"),
    );
    expect(outcomes.filter((o) => o === "unauthorized").length).toBe(LOGIN_LIMITS.perAccountAndIp);
    expect(outcomes.filter((o) => o === "rate_limited").length).toBe(20 - LOGIN_LIMITS.perAccountAndIp);
  });

  test("thirty wrong passwords at once from thirty addresses: exactly the account's limit are tried (L8)", async () => {
    const outcomes = await wrongPasswordsAtOnce(
      ctx,
      Array.from({ length: 30 }, (_, i) => `198.51.100.${i + 1}`),
    );
    expect(outcomes.filter((o) => o === "unauthorized").length).toBe(LOGIN_LIMITS.perAccount);
    expect(outcomes.filter((o) => o === "rate_limited").length).toBe(30 - LOGIN_LIMITS.perAccount);
  }, 120_000);
});

/**
 * Sign-in throttling is exact on both engines, also for attempts that arrive at once (on PostgreSQL they run truly
 * in parallel on several connections): one address gets its five tries at one email, not more.
 */
import { expect, test } from "bun:test";
import { isAppError } from "../../src/errors/index.ts";
import { createSessionsService, LOGIN_LIMITS } from "../../src/owner/sessions.service.ts";
import { describeStores } from "../helpers/stores.ts";
import { uniq } from "../helpers/visitor-seed.ts";

describeStores("sign-in throttling", (ctx) => {
  test("twenty wrong passwords at once from one address: exactly five are tried, fifteen are throttled", { timeout: 120_000 }, async () => {
    const { repos } = ctx.store();
    const email = `${uniq("owner")}@example.com`;
    await repos.accounts.create({ email, passwordHash: await Bun.password.hash("the right password"), tokens: 0 });
    const sessions = createSessionsService({
      accounts: repos.accounts,
      sessions: repos.ownerSessions,
      attempts: repos.loginAttempts,
      idleMs: 60_000,
      maxMs: 600_000,
    });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sessions.login({ email, password: `guess ${i}`, clientIp: "198.51.100.9" }).then(
          () => "signed in",
          (e: unknown) => (isAppError(e) ? e.code : String(e)),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "unauthorized").length).toBe(LOGIN_LIMITS.perAccountAndIp);
    expect(outcomes.filter((o) => o === "rate_limited").length).toBe(20 - LOGIN_LIMITS.perAccountAndIp);
  });

  test("thirty wrong passwords at once from thirty addresses: exactly the account's limit are tried (L8)", async () => {
    const { repos } = ctx.store();
    const email = `${uniq("owner")}@example.com`;
    await repos.accounts.create({ email, passwordHash: await Bun.password.hash("the right password"), tokens: 0 });
    const sessions = createSessionsService({
      accounts: repos.accounts,
      sessions: repos.ownerSessions,
      attempts: repos.loginAttempts,
      idleMs: 60_000,
      maxMs: 600_000,
    });
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        sessions.login({ email, password: `guess ${i}`, clientIp: `198.51.100.${i + 1}` }).then(
          () => "signed in",
          (e: unknown) => (isAppError(e) ? e.code : String(e)),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "unauthorized").length).toBe(LOGIN_LIMITS.perAccount);
    expect(outcomes.filter((o) => o === "rate_limited").length).toBe(30 - LOGIN_LIMITS.perAccount);
  }, 120_000);
});

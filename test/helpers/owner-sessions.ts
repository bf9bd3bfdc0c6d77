import { createSessionsService } from "../../src/owner/sessions.service.ts";
import type { Repos } from "../../src/store/contract/index.ts";

/** The owner sessions service over a store's repos, with a minute's idle time and ten minutes at most. */
export function testSessions(repos: Repos, verify?: (password: string, hash: string) => Promise<boolean>) {
  return createSessionsService({
    accounts: repos.accounts,
    sessions: repos.ownerSessions,
    attempts: repos.loginAttempts,
    idleMs: 60_000,
    maxMs: 600_000,
    verify,
  });
}

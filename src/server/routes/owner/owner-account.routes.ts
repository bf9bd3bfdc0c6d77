import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import { toSeconds } from "../../../shared/wire-time.ts";
import { accountResponse, okResponse, passwordBody } from "./owner.schemas.ts";
import type { OwnerGuard } from "./owner-guard.ts";

/** Token balance with its ledger, and changing the console password. */
export function ownerAccountRoutes(services: Services, guard: OwnerGuard) {
  return new Elysia({ name: "owner-account", prefix: "/owner/api" })
    .get(
      "/account",
      async ({ request }) => {
        const { account } = await guard.session(request);
        const ledger = (await services.accounts.ledger(account.id, 200)).map((l) => ({
          delta: l.delta,
          balance: l.balance,
          reason: l.reason,
          created_at: toSeconds(l.createdAt),
          deployment_id: l.deploymentId,
          deployment_name: l.deploymentName,
          question: l.question,
        }));
        return { id: account.id, email: account.email, tokens: account.tokens, ledger };
      },
      { response: { 200: accountResponse }, detail: { summary: "Token balance and its history (newest first)", tags: ["account"] } },
    )
    .post(
      "/account/password",
      async ({ request, body }) => {
        const session = await guard.session(request);
        await services.sessions.changePassword(session, body.current_password, body.new_password);
        return { success: true as const };
      },
      {
        body: passwordBody,
        response: { 200: okResponse },
        detail: { summary: "Change the password (signs out every other session)", tags: ["account"] },
      },
    );
}

import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import type { SessionContext } from "../../../owner/sessions.service.ts";
import { toSeconds } from "../../../shared/wire-time.ts";
import { loginBody, okResponse, sessionResponse } from "./owner.schemas.ts";
import type { OwnerGuard } from "./owner-guard.ts";

const view = (s: Services, ctx: SessionContext) => ({
  account: { id: ctx.account.id, email: ctx.account.email, tokens: ctx.account.tokens },
  expires_at: toSeconds(ctx.expiresAt),
  idle_timeout_seconds: s.config.sessionIdleSeconds,
});

/** Sign in (sets the session cookie), who am I, sign out. */
export function ownerSessionRoutes(services: Services, guard: OwnerGuard) {
  return new Elysia({ name: "owner-session", prefix: "/owner/api" })
    .post(
      "/session",
      async ({ request, body, set, server }) => {
        const { token, session } = await services.sessions.login({
          email: body.email,
          password: body.password,
          clientIp: guard.clientIp(request, server),
        });
        set.headers["set-cookie"] = guard.sessionCookie(token, request, server);
        return view(services, session);
      },
      { body: loginBody, response: { 200: sessionResponse }, detail: { summary: "Sign in with email and password", tags: ["session"] } },
    )
    .get("/session", async ({ request }) => view(services, await guard.session(request)), {
      response: { 200: sessionResponse },
      detail: { summary: "The signed-in owner", tags: ["session"] },
    })
    .delete(
      "/session",
      async ({ request, set, server }) => {
        await services.sessions.logout(guard.token(request));
        set.headers["set-cookie"] = guard.clearCookie(request, server);
        return { success: true as const };
      },
      { response: { 200: okResponse }, detail: { summary: "Sign out", tags: ["session"] } },
    );
}

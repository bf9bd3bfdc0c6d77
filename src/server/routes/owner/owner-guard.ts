import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import { appError } from "../../../errors/index.ts";
import { addressAllowed, type Cidr, clientAddress, parseCidr } from "../../../net/cidr.ts";
import type { SessionContext } from "../../../owner/sessions.service.ts";

export const SESSION_COOKIE = "docchat_session";
export const OWNER_API = "/owner/api";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Bun's server handle, as far as the guard needs it. */
export interface SocketInfo {
  requestIP(request: Request): { address: string } | null;
}

export function readCookie(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
}

/**
 * Sessions and CSRF for the owner API. The server's own origin is DOCCHAT_PUBLIC_URL when set, else the
 * request's Host (X-Forwarded-Host/-Proto only when the socket peer is a trusted proxy). State-changing
 * requests must come from that origin: `Sec-Fetch-Site` same-origin/none and a matching `Origin`; a request
 * with neither header is refused, since every browser able to ride a cookie sends at least one.
 */
export function createOwnerGuard(services: Services) {
  const { config } = services;
  const trusted = config.trustedProxies.map(parseCidr).filter((c): c is Cidr => c !== null);
  const socketIp = (request: Request, server: SocketInfo | null | undefined) => server?.requestIP(request)?.address ?? "0.0.0.0";
  const fromProxy = (request: Request, server: SocketInfo | null | undefined) =>
    trusted.length > 0 && addressAllowed(trusted, socketIp(request, server));
  const forwarded = (request: Request, name: string) => request.headers.get(name)?.split(",")[0]?.trim().toLowerCase() || null;

  const guard = {
    /** Served over TLS directly, behind a trusted proxy that terminated TLS, or configured as https. */
    viaTls(request: Request, server: SocketInfo | null | undefined): boolean {
      if (config.publicUrl) return config.publicUrl.startsWith("https:");
      if (new URL(request.url).protocol === "https:") return true;
      return fromProxy(request, server) && forwarded(request, "x-forwarded-proto") === "https";
    },
    ownOrigin(request: Request, server: SocketInfo | null | undefined): string {
      if (config.publicUrl) return config.publicUrl;
      const url = new URL(request.url);
      const host = (fromProxy(request, server) && forwarded(request, "x-forwarded-host")) || url.host;
      return `${guard.viaTls(request, server) ? "https:" : url.protocol}//${host}`;
    },
    checkCsrf(request: Request, server: SocketInfo | null | undefined): void {
      if (!STATE_CHANGING.has(request.method)) return;
      const site = request.headers.get("sec-fetch-site");
      const origin = request.headers.get("origin");
      const refuse = () => appError("forbidden", { message: "Cross-site request refused. Use the console on this server's own address." });
      if (site && site !== "same-origin" && site !== "none") throw refuse();
      if (origin && origin.toLowerCase() !== guard.ownOrigin(request, server).toLowerCase()) throw refuse();
      if (!site && !origin) throw refuse();
    },
    sessionCookie(token: string, request: Request, server: SocketInfo | null | undefined): string {
      const secure = guard.viaTls(request, server) ? "; Secure" : "";
      return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${config.sessionMaxSeconds}${secure}`;
    },
    clearCookie(request: Request, server: SocketInfo | null | undefined): string {
      const secure = guard.viaTls(request, server) ? "; Secure" : "";
      return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure}`;
    },
    token(request: Request): string | null {
      return readCookie(request, SESSION_COOKIE);
    },
    /** The signed-in owner, or 401. */
    async session(request: Request): Promise<SessionContext> {
      const s = await services.sessions.authenticate(guard.token(request));
      if (!s) throw appError("unauthorized", { message: "Your session has ended. Please sign in again." });
      return s;
    },
    /** One of the owner's own deployments; another account's is indistinguishable from a missing one. */
    async deployment(request: Request, id: string) {
      const s = await guard.session(request);
      return { session: s, deployment: await services.deployments.getOrThrow(id, s.account.id) };
    },
    clientIp(request: Request, server: SocketInfo | null | undefined): string {
      return clientAddress(socketIp(request, server), request.headers.get("x-forwarded-for"), trusted);
    },
  };
  return guard;
}

export type OwnerGuard = ReturnType<typeof createOwnerGuard>;

/**
 * A route family under one deployment (`/owner/api/deployments/:id/…`): its handlers receive the signed-in owner's
 * `session` and that `deployment`, resolved once the request is valid (401 without a session; another account's
 * deployment is a 404, as a missing one).
 */
export function deploymentRoutes(guard: OwnerGuard, name: string) {
  return new Elysia({ name, prefix: "/owner/api/deployments/:id" }).resolve(({ request, params }) => guard.deployment(request, params.id));
}

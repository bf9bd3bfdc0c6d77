import type { TestServer } from "../helpers/server.ts";

export interface OwnerResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * A browser-like owner API client: keeps the session cookie and sends the same-origin `Origin` header a
 * browser would, unless a test overrides the headers.
 */
export function ownerClient(server: { url: string }) {
  let cookie = "";
  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<OwnerResponse<T>> {
    const h: Record<string, string> = { origin: server.url, ...headers };
    if (cookie) h.cookie = cookie;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      h["content-type"] = "application/json";
    }
    const res = await fetch(`${server.url}${path}`, { method, headers: h, body: payload, redirect: "manual" });
    const set = res.headers.get("set-cookie");
    if (set) cookie = /Max-Age=0/i.test(set) ? "" : (set.split(";")[0] ?? "");
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as T };
  }
  return {
    call,
    get: <T = Record<string, unknown>>(path: string) => call<T>("GET", `/owner/api${path}`),
    post: <T = Record<string, unknown>>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>("POST", `/owner/api${path}`, body ?? {}, headers),
    patch: <T = Record<string, unknown>>(path: string, body?: unknown) => call<T>("PATCH", `/owner/api${path}`, body ?? {}),
    put: <T = Record<string, unknown>>(path: string, body?: unknown) => call<T>("PUT", `/owner/api${path}`, body ?? {}),
    del: <T = Record<string, unknown>>(path: string) => call<T>("DELETE", `/owner/api${path}`),
    login: (email: string, password: string) => call("POST", "/owner/api/session", { email, password }),
    get cookie() {
      return cookie;
    },
    set cookie(v: string) {
      cookie = v;
    },
  };
}

export type OwnerClient = ReturnType<typeof ownerClient>;

let seq = 0;

/** An owner account with a console password (and tokens), signed in through the API. */
export async function signedInOwner(server: TestServer, opts: { password?: string; tokens?: number } = {}) {
  const email = `owner-${++seq}-${Date.now()}@example.com`;
  const password = opts.password ?? "correct horse battery";
  const account = await server.services.accounts.create({ email, password, tokens: opts.tokens ?? 10_000 });
  const client = ownerClient(server);
  const r = await client.login(email, password);
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { client, email, password, accountId: account.id };
}

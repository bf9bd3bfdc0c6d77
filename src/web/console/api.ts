/** The owner API client: same-origin fetch with the session cookie; failures carry the server's error.message. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly param?: string,
  ) {
    super(message);
  }
}

let onSignedOut: () => void = () => {};

export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: "same-origin", headers: { accept: "application/json" } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  let res: Response;
  try {
    res = await fetch(`/owner/api${path}`, init);
  } catch {
    throw new ApiError("Cannot reach the server. Check your connection and try again.", "network", 0);
  }
  const data = (await res.json().catch(() => null)) as { error?: { message?: unknown; code?: unknown; param?: unknown } } | null;
  if (!res.ok) {
    const e = data?.error;
    const message = typeof e?.message === "string" ? e.message : `The request failed (HTTP ${res.status}).`;
    if (res.status === 401 && path !== "/session") onSignedOut();
    throw new ApiError(
      message,
      typeof e?.code === "string" ? e.code : "http_error",
      res.status,
      typeof e?.param === "string" ? e.param : undefined,
    );
  }
  return data as T;
}

export const errorText = (e: unknown) => (e instanceof Error ? e.message : "Something went wrong.");

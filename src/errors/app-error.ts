import { type ErrorCode, errorCatalogue } from "./catalogue.ts";

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param?: string;
  /** extra response headers, e.g. Retry-After */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, opts: { message?: string; param?: string; headers?: Record<string, string>; cause?: unknown } = {}) {
    const entry = errorCatalogue[code];
    super(opts.message ?? entry.message, { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    this.status = entry.status;
    this.type = entry.type;
    this.param = opts.param;
    this.headers = opts.headers;
  }
}

/** Feature code throws `appError('no_tokens')`; the server's onError maps it to the wire shape. */
export function appError(
  code: ErrorCode,
  opts?: { message?: string; param?: string; headers?: Record<string, string>; cause?: unknown },
): AppError {
  return new AppError(code, opts);
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

export interface ErrorBody {
  error: { message: string; type: string; code: string; param?: string };
}

/** The wire body; `message` replaces the error's own (its translation for the visitor). */
export function toErrorBody(e: AppError, message = e.message): ErrorBody {
  const error: ErrorBody["error"] = { message, type: e.type, code: e.code };
  if (e.param) error.param = e.param;
  return { error };
}

/** The server's own limit on a request's address and headers: past it, 431 in the error shape with rate-limit headers. */
export const MAX_HEAD_BYTES = 12 * 1024;

/**
 * Bun's HTTP parser answers a head over its own limit (16 KiB unless --max-http-header-size says otherwise) with a
 * bare 431 and no body, before any of docchat's code runs. The binary and `bun run serve` raise it to this, so any
 * head a client sends by mistake gets docchat's 431 with its error body; only a head past it (a deliberate flood)
 * gets the runtime's. Kept in step with package.json's scripts and scripts/build-binary.ts by a test.
 */
export const RUNTIME_HEAD_LIMIT = 256 * 1024;

/** The runtime's head limit in this process (--max-http-header-size, BUN_OPTIONS); node:http is loaded when asked. */
export const runtimeHeadLimit = (): number => (require("node:http") as typeof import("node:http")).maxHeaderSize;

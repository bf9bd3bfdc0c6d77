/**
 * Memory of `docchat serve` under a flood of large unauthenticated uploads: N concurrent multipart posts of
 * SIZE MB each, half with a bogus key and half with none, sent as fast as the socket takes them until the
 * server answers. Reports the server's RSS before and after (from /proc), and how much of the bodies went out.
 *
 *   bun bench/upload-flood.bench.ts [--posts 20] [--mb 25] [--write]
 *
 * --write replaces the "Unauthenticated upload flood" section of BENCHMARKS.md.
 */

import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { multipartHead, rawRequest } from "../test/helpers/raw-http.ts";
import { reportSection } from "./lib/benchmarks-md.ts";
import { REPO, startDocchat } from "./lib/http-servers.ts";
import { describeMachine } from "./lib/machine-info.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { posts: { type: "string" }, mb: { type: "string" }, write: { type: "boolean" } },
});
const posts = Number(values.posts ?? 20);
const mb = Number(values.mb ?? 25);
const startLoad = loadavg();
const rss = async (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(await Bun.file(`/proc/${pid}/status`).text())?.[1] ?? "0") / 1024;

const docchat = await startDocchat([process.execPath, join(REPO, "src/main.ts")], { env: { DOCCHAT_EMBEDDER: "none" } });
try {
  const host = new URL(docchat.url).host;
  const before = await rss(docchat.serve.pid);
  const started = performance.now();
  const replies = await Promise.all(
    Array.from({ length: posts }, (_, i) => {
      const headers: Record<string, string> = i % 2 ? { authorization: "Bearer dck_bogus0000000000000000000000000000" } : {};
      const bytes = mb * 1024 * 1024;
      return rawRequest({
        url: docchat.url,
        head: multipartHead("/api/v1/documents", host, bytes, headers),
        bodyBytes: bytes,
        chunkBytes: 1024 * 1024,
        timeoutMs: 60_000,
      });
    }),
  );
  const ms = performance.now() - started;
  const after = await rss(docchat.serve.pid);
  const statuses = [...new Set(replies.map((r) => r.status))].join(", ");
  const sentMb = replies.reduce((n, r) => n + r.sent, 0) / 1024 / 1024;
  const body = `Command: \`bun bench/upload-flood.bench.ts --posts ${posts} --mb ${mb}\` (${posts} concurrent multipart posts declaring ${mb} MB each to
\`POST /api/v1/documents\`, half with a bogus key, half with none; each client stops sending once the answer arrives).

Machine: ${describeMachine()}; load average ${startLoad.map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min) when the run started.

| Server RSS before | after | growth | answers | body sent by clients (of ${posts * mb} MB) | all answered in |
|---:|---:|---:|---|---:|---:|
| ${before.toFixed(0)} MB | ${after.toFixed(0)} MB | ${(after - before).toFixed(0)} MB | ${statuses} | ${sentMb.toFixed(1)} MB | ${ms.toFixed(0)} ms |

Before the fix (issue 14, item 6) the same flood took RSS from about 105 MB to 669 MB (the issue's report; 530 MB of
growth in test/hardening/upload-gate.test.ts without the fix) because bodies were read whole before the 401.`;
  await reportSection("Unauthenticated upload flood", body, values.write);
} finally {
  await docchat.stop();
}

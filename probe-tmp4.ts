import { isolatedParse } from "./src/ingest/isolated-parse.ts";
const f = process.argv[2]!;
const bytes = new Uint8Array(await Bun.file(f).arrayBuffer());
for (const [label, command, mem] of [["plain-nolimit", [process.execPath, "src/ingest/parse-worker.ts"], 0], ["plain-8g", [process.execPath, "src/ingest/parse-worker.ts"], 8192], ["plain-16g", [process.execPath, "src/ingest/parse-worker.ts"], 16384], ["plain-32g", [process.execPath, "src/ingest/parse-worker.ts"], 32768]] as const) {
  const t0 = performance.now();
  try { const d = await isolatedParse(bytes, { maxPages: 500, maxInflatedBytes: 1e9 }, { command: [...command], memoryLimitMb: mem }); console.log(label, "ok", d.blocks.length, Math.round(performance.now()-t0)+"ms"); }
  catch (e: any) { console.log(label, "ERR", e.code, String(e.cause?.message ?? "").slice(0,100)); }
}

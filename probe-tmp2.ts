import { isolatedParse } from "./src/ingest/isolated-parse.ts";
for (const f of process.argv.slice(2)) {
  const bytes = new Uint8Array(await Bun.file(f).arrayBuffer());
  const t0 = performance.now();
  try { const d = await isolatedParse(bytes, { maxPages: 500, maxInflatedBytes: 1e9, filename: f }, { memoryLimitMb: Number(process.env.MEM ?? 2048) }); console.log(f.split("/").pop(), "ok", d.kind, d.blocks.length, Math.round(performance.now()-t0)+"ms"); }
  catch (e: any) { console.log(f.split("/").pop(), "ERR", e.code, String(e.cause?.message ?? "").slice(0,300)); }
}

import { parseDocument } from "./src/ingest/parse.ts";
import { chunkDocument } from "./src/ingest/chunk.ts";
for (const f of process.argv.slice(2)) {
  const bytes = new Uint8Array(await Bun.file(f).arrayBuffer());
  try {
    const d = await parseDocument(bytes, { maxPages: 200, maxInflatedBytes: 1e8, filename: f });
    const c = chunkDocument(d);
    const maxT = Math.max(...c.map(x => x.tokenCount));
    console.log(f.split("/").slice(-2).join("/"), d.kind, "blocks", d.blocks.length, "chunks", c.length, "maxTok", maxT);
    if (process.env.SHOW) for (const x of c.slice(0, Number(process.env.SHOW))) console.log(JSON.stringify(x));
  } catch (e: any) { console.log(f.split("/").slice(-2).join("/"), "ERR", e.code ?? e.stack); }
}

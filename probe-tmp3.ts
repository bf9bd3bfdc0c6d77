import mammoth from "mammoth";
import { guardZipInflation } from "./src/ingest/zip-guard.ts";
import { htmlToBlocks } from "./src/ingest/parsers/docx-html.ts";
const bytes = new Uint8Array(await Bun.file(process.argv[2]!).arrayBuffer());
let t = performance.now();
const lap = (l: string) => { const n = performance.now(); console.log(l, Math.round(n - t), "ms", "rss", process.memoryUsage().rss/1e6|0); t = n; };
await guardZipInflation(bytes, 1e9); lap("guard");
const r = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }, { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) }); lap("mammoth");
const b = htmlToBlocks(r.value); lap("blocks " + b.length);

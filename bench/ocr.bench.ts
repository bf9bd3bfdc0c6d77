// Usage: bun bench/ocr.bench.ts [--write] [--dpi 150,180,220]
// OCR of scanned pages through the product (tesseract.js, offline) next to the native `tesseract` command
// (Debian's tesseract-ocr, installed with apt-get if missing) on the same pages, in the same run:
//  - pages: five pages of real text PDFs (docs/pdf/text) rasterised with pdftoppm at 200 dpi, wrapped into ONE
//    image-only PDF with img2pdf (a scanned document of five pages);
//  - product: parseDocument() on that PDF in this process (what a parse worker runs: render each page with
//    pdf.js, read it with the engine's threads) → pages/s, peak RSS; then the same again in this process, as a
//    parse worker reads every document after its first, with the engine already started; and (engine running) with
//    DOCCHAT_OCR_TESSDATA set to Debian's model folder (tessdata_fast, installed with the tesseract command);
//  - native: `tesseract PAGE.png -` on the same 200-dpi images, one thread each (OMP_THREAD_LIMIT=1), as many at
//    once as there are cores → pages/s; as Debian ships it, then with docchat's settings (tessedit_do_invert=0),
//    then on docchat's own model with its settings;
//  - CPU seconds per page for both (this process's, all threads; the native processes' own): on a shared machine
//    the wall clock depends on the other load, CPU time much less;
//  - accuracy: letters and digits (lower-cased, NFKC), edit distance against the text PDF's own text, reading
//    order included. Single-column pages: pdftotext. The three-column Federal Register page: pdftotext of the
//    header, each column and the footer in reading order (plain pdftotext follows the file's drawing order,
//    which puts a section of column 2 after column 3); its rotated margin note is left out.
//  - with --dpi: each page of the scanned PDF rendered grey at each resolution (pdftoppm), read by docchat's engine
//    (readPageImage: tesseract.js, reading order) and by native Tesseract on docchat's model and settings, the
//    same pixels for both → CPU s/page and accuracy per resolution.
// --write replaces the "OCR of scanned pages" section of BENCHMARKS.md.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { parseDocument } from "../src/ingest/parse.ts";
import { readPageImage } from "../src/ingest/parsers/pdf-ocr-engine.ts";
import { replaceSection } from "./lib/benchmarks-md.ts";

const { values } = parseArgs({ options: { write: { type: "boolean", default: false }, dpi: { type: "string", default: "" } } });
const sweep = values.dpi ? values.dpi.split(",").map(Number) : [];
const SHARED = join(import.meta.dir, "../../shared/data/docs");
const work = mkdtempSync(join(tmpdir(), "docchat-bench-ocr-"));
for (const tool of ["tesseract", "img2pdf", "pdftoppm"])
  if (!Bun.which(tool))
    Bun.spawnSync(["apt-get", "install", "-y", { tesseract: "tesseract-ocr", img2pdf: "img2pdf", pdftoppm: "poppler-utils" }[tool] as string], {
      stdout: "ignore",
      stderr: "ignore",
    });

/** [file, page, regions in reading order (x, y, w, h in points) or none for the whole page] */
const PAGES: [string, number, number[][] | null][] = [
  ["pdf/text/pdflatex-4-pages.pdf", 1, null],
  ["pdf/text/pdflatex-4-pages.pdf", 2, null],
  [
    "pdf/text/federal-register-2020-17221.pdf",
    1,
    [
      [0, 0, 612, 118],
      [40, 118, 176, 630],
      [216, 118, 178, 630],
      [394, 118, 186, 630],
      [40, 748, 572, 44],
    ],
  ],
  ["pdf/text/google-doc-document.pdf", 1, null],
  ["pdf/text/crazyones.pdf", 1, null],
];
const normalise = (t: string) =>
  t
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
const run = (cmd: string[]) => Bun.spawnSync(cmd).stdout.toString();

/** Edit distance in O(n·m) time and O(m) memory. */
function levenshtein(x: string, y: string): number {
  let prev = Uint32Array.from({ length: y.length + 1 }, (_, i) => i);
  let cur = new Uint32Array(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x.charCodeAt(i - 1) === y.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length] as number;
}

const pages = PAGES.map(([file, page, regions], i) => {
  const src = join(SHARED, file);
  const png = join(work, `page-${i}`);
  run(["pdftoppm", "-r", "200", "-png", "-singlefile", "-f", String(page), "-l", String(page), src, png]);
  const text = (args: string[]) => run(["pdftotext", "-f", String(page), "-l", String(page), ...args, src, "-"]);
  const truth = regions
    ? regions.map(([x, y, w, h]) => text(["-x", String(x), "-y", String(y), "-W", String(w), "-H", String(h)])).join("\n")
    : text([]);
  return { label: `${basename(file)} p${page}`, png: `${png}.png`, truth: normalise(truth), columns: regions ? 3 : 1 };
});
const scanned = join(work, "scanned.pdf");
run(["img2pdf", ...pages.map((p) => p.png), "-o", scanned]);
const load = loadavg()[0] ?? 0;

// the product, in this process
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 50);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const scannedBytes = new Uint8Array(await Bun.file(scanned).arrayBuffer());
/** One parse of the scanned PDF: its time, CPU time (all of this process's threads) and each page's text. */
async function product(tessdata?: string): Promise<{ ms: number; cpuMs: number; texts: string[] }> {
  const c0 = cpuMs();
  const t0 = performance.now();
  const parsed = await parseDocument(scannedBytes, {
    maxPages: 10,
    maxInflatedBytes: 1 << 28,
    ocr: { enabled: true, maxPages: 10, timeoutMs: 600_000, tessdata },
  });
  const texts = pages.map((_, i) =>
    parsed.blocks
      .filter((b) => b.page === i + 1)
      .map((b) => b.text)
      .join("\n"),
  );
  return { ms: performance.now() - t0, cpuMs: cpuMs() - c0, texts };
}
// the first document of a parse process starts the engine (WebAssembly compiled, model loaded, per thread);
// every later one finds it running
const first = await product();
const peakFirst = peak;
const later = await product();
const peakLater = peak;
// docchat on Debian's model folder (DOCCHAT_OCR_TESSDATA), engine running: started by a first pass, not counted
const debianTessdata = run(["tesseract", "--list-langs"]).match(/"(.+?)\/?"/)?.[1] ?? "";
await product(debianTessdata);
const fastModel = await product(debianTessdata);
clearInterval(sampler);
const [productMs, productCpuMs, productText] = [first.ms, first.cpuMs, first.texts];

/** docchat's OCR settings, for the native command (pdf-ocr-engine.ts): no second pass over lines inverted. */
const SETTINGS = ["-c", "tessedit_do_invert=0"];
/**
 * Native Tesseract, one thread per process, as many processes as cores; `tessdata`: another model folder;
 * `images`: other images than the 200-dpi PNGs.
 */
async function native(
  tessdata?: string,
  args: string[] = [],
  images = pages.map((p) => p.png),
): Promise<{ ms: number; cpuMs: number; texts: string[] }> {
  const t = performance.now();
  let cpu = 0;
  const texts: string[] = new Array(pages.length).fill("");
  let next = 0;
  await Promise.all(
    Array.from({ length: cpus().length }, async () => {
      while (next < pages.length) {
        const i = next++;
        const p = Bun.spawn(["tesseract", images[i] as string, "-", ...(tessdata ? ["--tessdata-dir", tessdata] : []), ...args], {
          env: { ...process.env, OMP_THREAD_LIMIT: "1" },
          stdout: "pipe",
          stderr: "ignore",
        });
        texts[i] = await new Response(p.stdout).text();
        await p.exited;
        cpu += Number(p.resourceUsage()?.cpuTime.total ?? 0) / 1000;
      }
    }),
  );
  return { ms: performance.now() - t, cpuMs: cpu, texts };
}
const fast = await native();
const fastSettings = await native(undefined, SETTINGS);
// the model docchat reads with, unpacked for the native command: the engine compared on equal terms
const sameModel = join(work, "tessdata");
const require = createRequire(import.meta.url);
const eng = require("@tesseract.js-data/eng") as { langPath: string };
Bun.spawnSync(["mkdir", "-p", sameModel]);
await Bun.write(join(sameModel, "eng.traineddata"), gunzipSync(await Bun.file(join(`${eng.langPath}_best_int`, "eng.traineddata.gz")).arrayBuffer()));
const best = await native(sameModel, SETTINGS);
const [nativeMs, nativeText] = [fast.ms, fast.texts];
const nativeVersion = run(["tesseract", "--version"]).split("\n")[0];

const accuracy = (texts: string[], columns: number) => {
  let chars = 0;
  let errors = 0;
  const each: string[] = [];
  for (const [i, p] of pages.entries()) {
    if (p.columns !== columns) continue;
    const e = Math.min(p.truth.length, levenshtein(normalise(texts[i] ?? ""), p.truth));
    chars += p.truth.length;
    errors += e;
    each.push(`${p.label} ${((1 - e / p.truth.length) * 100).toFixed(1)} %`);
  }
  return { pct: ((1 - errors / chars) * 100).toFixed(1), chars, each: each.join(", ") };
};
const rate = (ms: number) => (pages.length / (ms / 1000)).toFixed(2);
const perPage = (ms: number) => (ms / 1000 / pages.length).toFixed(1);
/** Pages/s if every core did nothing but this: cores over CPU seconds per page. */
const ceiling = (cpuMs: number) => (cpus().length / (cpuMs / 1000 / pages.length)).toFixed(2);
const [pSingle, pMulti, nSingle, nMulti] = [accuracy(productText, 1), accuracy(productText, 3), accuracy(nativeText, 1), accuracy(nativeText, 3)];
const [bSingle, bMulti] = [accuracy(best.texts, 1), accuracy(best.texts, 3)];
const [lSingle, lMulti] = [accuracy(later.texts, 1), accuracy(later.texts, 3)];
const laterSame = later.texts.every((t, i) => t === productText[i]);
const [fmSingle, fmMulti] = [accuracy(fastModel.texts, 1), accuracy(fastModel.texts, 3)];
const [fsSingle, fsMulti] = [accuracy(fastSettings.texts, 1), accuracy(fastSettings.texts, 3)];

/** The engine alone on the same grey pixels as native, at each --dpi resolution. */
const sweepRows: string[] = [];
for (const dpi of sweep) {
  const images = pages.map((_, i) => {
    const out = join(work, `sweep-${dpi}-${i}`);
    run(["pdftoppm", "-r", String(dpi), "-gray", "-singlefile", "-f", String(i + 1), "-l", String(i + 1), scanned, out]);
    return `${out}.pgm`;
  });
  const c0 = cpuMs();
  const engine = await Promise.all(
    images.map(async (f) => (await readPageImage(Buffer.from(await Bun.file(f).arrayBuffer()), undefined, dpi)).text),
  );
  const engineCpu = cpuMs() - c0;
  const nat = await native(sameModel, [...SETTINGS, "-c", `user_defined_dpi=${dpi}`], images);
  const [eS, eM, nS, nM] = [accuracy(engine, 1), accuracy(engine, 3), accuracy(nat.texts, 1), accuracy(nat.texts, 3)];
  sweepRows.push(
    `| ${dpi} | ${perPage(engineCpu)} | ${eS.pct} % (${eS.each.replace(/\.pdf/g, "")}) | ${eM.pct} % | ${perPage(nat.cpuMs)} | ${nS.pct} % (${nS.each.replace(/\.pdf/g, "")}) | ${nM.pct} % |`,
  );
}
const loadEnd = loadavg()[0] ?? 0;
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`;
const lines = [
  `Command: \`bun bench/ocr.bench.ts${values.dpi ? ` --dpi ${values.dpi}` : ""}\` — ${new Date().toISOString().slice(0, 10)}, ${machine}, Bun ${Bun.version}; load average ${load.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end (the machine is shared: the ratio between the two engines in one run is the figure to compare).`,
  "",
  `${pages.length} pages of real text PDFs rasterised at 200 dpi (pdftoppm) into one image-only PDF (img2pdf); accuracy = letters and digits right by edit distance against the text PDF's own text, reading order included (the three-column page's truth is its header, columns and footer in reading order, its rotated margin note left out).`,
  "",
  "| engine | pages/s | CPU s/page | single-column pages: characters right | three-column page | peak RSS |",
  "|---|---:|---:|---:|---:|---:|",
  `| docchat: tesseract.js 7 (WebAssembly, eng 4.0.0_best_int LSTM), ${cpus().length > 0 ? Math.min(4, cpus().length) : 1} engine threads, one process, pages rendered by pdf.js; first document of the process (engine started) | **${rate(productMs)}** (${(productMs / 1000).toFixed(1)} s) | **${perPage(productCpuMs)}** | **${pSingle.pct} %** (${pSingle.each}) | **${pMulti.pct} %** | ${(peakFirst / 2 ** 20).toFixed(0)} MiB |`,
  `| docchat, the same document again in that process (engine running, as for every later document) | **${rate(later.ms)}** (${(later.ms / 1000).toFixed(1)} s) | **${perPage(later.cpuMs)}** | ${laterSame ? "same text" : `${lSingle.pct} %`} | ${laterSame ? "same text" : `${lMulti.pct} %`} | ${(peakLater / 2 ** 20).toFixed(0)} MiB |`,
  `| docchat with \`DOCCHAT_OCR_TESSDATA=${debianTessdata}\` (Debian's eng, tessdata_fast), engine running | ${rate(fastModel.ms)} (${(fastModel.ms / 1000).toFixed(1)} s) | ${perPage(fastModel.cpuMs)} | ${fmSingle.pct} % (${fmSingle.each}) | ${fmMulti.pct} % | ${(peak / 2 ** 20).toFixed(0)} MiB (both engines in the process) |`,
  `| native: ${nativeVersion} (Debian, eng from tessdata_fast), one thread per process, ${cpus().length} at once, on the 200-dpi images, settings as Debian ships them | ${rate(nativeMs)} (${(nativeMs / 1000).toFixed(1)} s) | ${perPage(fast.cpuMs)} | ${nSingle.pct} % (${nSingle.each}) | ${nMulti.pct} % | — |`,
  `| native, Debian's model, docchat's settings (\`-c tessedit_do_invert=0\`) | ${rate(fastSettings.ms)} (${(fastSettings.ms / 1000).toFixed(1)} s) | ${perPage(fastSettings.cpuMs)} | ${fsSingle.pct} % (${fsSingle.each}) | ${fsMulti.pct} % | — |`,
  `| native, same model as docchat (eng 4.0.0_best_int), same settings | ${rate(best.ms)} (${(best.ms / 1000).toFixed(1)} s) | ${perPage(best.cpuMs)} | ${bSingle.pct} % (${bSingle.each}) | ${bMulti.pct} % | — |`,
  "",
  `Ratios in this run: docchat (first document) reads ${((nativeMs / productMs) * 100).toFixed(0)} % as many pages per second as native Tesseract with Debian's (fast) model, ${((best.ms / productMs) * 100).toFixed(0)} % as many as native Tesseract with docchat's own model; per CPU-second, ${((fast.cpuMs / productCpuMs) * 100).toFixed(0)} % and ${((best.cpuMs / productCpuMs) * 100).toFixed(0)} % (engine running: ${((fast.cpuMs / later.cpuMs) * 100).toFixed(0)} % and ${((best.cpuMs / later.cpuMs) * 100).toFixed(0)} %; docchat on Debian's model against native on the same model: ${((fast.cpuMs / fastModel.cpuMs) * 100).toFixed(0)} %).`,
  "",
  `At these CPU times per page, ${cpus().length} cores with nothing else running read at most ${ceiling(productCpuMs)} pages/s with docchat (${ceiling(later.cpuMs)} with its engine running, ${ceiling(fastModel.cpuMs)} on Debian's model), ${ceiling(fast.cpuMs)} with native Tesseract (fast model; ${ceiling(fastSettings.cpuMs)} with docchat's settings), ${ceiling(best.cpuMs)} with native Tesseract on docchat's model and settings.`,
  ...(sweepRows.length
    ? [
        "",
        `Resolution (\`--dpi ${sweep.join(",")}\`): each page of the scanned PDF rendered grey at that resolution by pdftoppm, the same pixels read by docchat's engine (tesseract.js, its reading order; pages ${cpus().length} at a time, engine running) and by native Tesseract on docchat's model and settings. CPU s/page and characters right:`,
        "",
        "| dpi | docchat CPU s/page | docchat single-column | docchat three-column | native CPU s/page | native single-column | native three-column |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        ...sweepRows,
      ]
    : []),
];
rmSync(work, { recursive: true, force: true });
console.log(lines.join("\n"));
if (values.write) await replaceSection(join(import.meta.dir, "../BENCHMARKS.md"), "OCR of scanned pages", lines.join("\n"));
process.exit(0);

import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { readingOrder } from "./pdf-ocr-layout.ts";
import { blocksFromTsv } from "./pdf-ocr-tsv.ts";

export interface PageReading {
  text: string;
  confidence: number;
}

interface Scheduler {
  addJob(
    action: "recognize",
    image: Buffer,
    options: { user_defined_dpi?: string },
    output: { text: false; tsv: true },
  ): Promise<{ data: { confidence: number; tsv: string | null } }>;
  getNumWorkers(): number;
}

/** The engines started in this process, by model folder ("" for the bundled model): in practice one. */
const engines = new Map<string, Promise<Scheduler>>();

/** Recognition threads: one per core (at most 4), each with its own copy of the model. */
export function ocrThreads(): number {
  const n = Number(availableParallelism());
  return Math.max(1, Math.min(4, Number.isFinite(n) && n > 0 ? n : 1));
}

/**
 * Tesseract (tesseract.js, WebAssembly) with the English LSTM model of @tesseract.js-data/eng (4.0.0_best_int:
 * LSTM only, a quarter of the size of the default 4.0.0 file with its legacy engine, and as quick: the same
 * network), read from node_modules, never fetched; or the eng.traineddata in `tessdata` when set
 * (DOCCHAT_OCR_TESSDATA). A scheduler over ocrThreads() workers, created once per parse process and reused for
 * every page of every document: pages are read in parallel.
 * Page segmentation is Tesseract's automatic layout (PSM 3), not tesseract.js's default single block (PSM 6),
 * which read a three-column page line by line straight across the columns (26 % of characters right).
 * Under Bun, tesseract.js loads its relaxed-SIMD core with the legacy engine built in, not the LSTM-only one (its
 * Node loader compares the worker's LSTM-only flag, a boolean, with engine-mode numbers): the LSTM-only cores
 * (relaxed SIMD or SIMD) were no quicker on bench/ocr.bench.ts's pages, so the default is left alone.
 */
export function ocrEngine(tessdata = ""): Promise<Scheduler> {
  const running = engines.get(tessdata);
  if (running) return running;
  const engine = (async () => {
    const require = createRequire(import.meta.url);
    const eng = require("@tesseract.js-data/eng") as { langPath: string };
    // checked first: tesseract.js keeps the threads of a worker whose model it could not read
    if (tessdata && !(await Bun.file(join(tessdata, "eng.traineddata")).exists()))
      throw new Error(`no eng.traineddata in DOCCHAT_OCR_TESSDATA (${tessdata})`);
    const Tesseract = await import("tesseract.js");
    const scheduler = Tesseract.createScheduler();
    const started = await Promise.allSettled(
      Array.from(
        { length: ocrThreads() },
        () =>
          // a model that can't be read never settles createWorker: tesseract.js hands the error to errorHandler
          // (without one, throws it uncaught)
          new Promise<Awaited<ReturnType<typeof Tesseract.createWorker>>>((resolve, reject) => {
            Tesseract.createWorker("eng", Tesseract.OEM.LSTM_ONLY, {
              // a folder of the operator's holds eng.traineddata as Tesseract ships it; the bundled one is gzipped
              ...(tessdata ? { langPath: tessdata, gzip: false } : { langPath: `${eng.langPath}_best_int`, gzip: true }),
              cacheMethod: "none",
              logger: () => {},
              errorHandler: (e: unknown) => reject(new Error(`OCR model: ${String(e)}`)),
            }).then(resolve, reject);
          }),
      ),
    );
    const workers = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const failed = started.find((s) => s.status === "rejected");
    if (failed) {
      await Promise.all(workers.map((w) => w.terminate().catch(() => {})));
      throw failed.reason;
    }
    for (const w of workers) {
      // no second pass over each line as white-on-black: scans are dark on light, and it costs time on every page
      await w.setParameters({ tessedit_pageseg_mode: Tesseract.PSM.AUTO, tessedit_do_invert: "0" });
      scheduler.addWorker(w);
    }
    return scheduler as unknown as Scheduler;
  })();
  engines.set(tessdata, engine);
  engine.catch(() => engines.delete(tessdata));
  return engine;
}

/**
 * Reads one page image: Tesseract's blocks in reading order (pdf-ocr-layout.ts), paragraphs apart. Only the TSV
 * is asked for: the plain text would be a second walk over the page's results, never used. `dpi`, the resolution
 * the page was rendered at, is given to Tesseract for this page alone (a PGM carries none, and Tesseract would
 * guess it from the letters' height): its layout sizes gutters in inches, and on a guess two justified pages of
 * the benchmark were cut into columns at 180 and 200 dpi (36-45 % of characters right, 99.9 % told the dpi).
 */
export async function readPageImage(image: Buffer, tessdata?: string, dpi?: number): Promise<PageReading> {
  const options = dpi ? { user_defined_dpi: String(Math.round(dpi)) } : {};
  const { data } = await (await ocrEngine(tessdata)).addJob("recognize", image, options, { text: false, tsv: true });
  const paragraphs = readingOrder(blocksFromTsv(data.tsv ?? "")).flatMap((b) =>
    b.paragraphs.map((p) => p.lines.filter(Boolean).join("\n")),
  );
  return { text: paragraphs.filter(Boolean).join("\n\n"), confidence: data.confidence };
}

import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
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
    options: Record<string, never>,
    output: { text: false; tsv: true },
  ): Promise<{ data: { confidence: number; tsv: string | null } }>;
  getNumWorkers(): number;
}

let engine: Promise<Scheduler> | undefined;

/** Recognition threads: one per core (at most 4), each with its own copy of the model. */
export function ocrThreads(): number {
  const n = Number(availableParallelism());
  return Math.max(1, Math.min(4, Number.isFinite(n) && n > 0 ? n : 1));
}

/**
 * Tesseract (tesseract.js, WebAssembly) with the English LSTM model of @tesseract.js-data/eng (4.0.0_best_int:
 * LSTM only, a quarter of the size of the default 4.0.0 file with its legacy engine, same accuracy on the
 * benchmark's pages), read from node_modules, never fetched. A scheduler over ocrThreads() workers, created once
 * per parse process and reused for every page of every document: pages are read in parallel.
 * Page segmentation is Tesseract's automatic layout (PSM 3), not tesseract.js's default single block (PSM 6),
 * which read a three-column page line by line straight across the columns (26 % of characters right).
 */
export function ocrEngine(): Promise<Scheduler> {
  engine ??= (async () => {
    const require = createRequire(import.meta.url);
    const eng = require("@tesseract.js-data/eng") as { langPath: string };
    const Tesseract = await import("tesseract.js");
    const scheduler = Tesseract.createScheduler();
    const workers = await Promise.all(
      Array.from({ length: ocrThreads() }, () =>
        Tesseract.createWorker("eng", Tesseract.OEM.LSTM_ONLY, {
          langPath: `${eng.langPath}_best_int`,
          gzip: true,
          cacheMethod: "none",
          logger: () => {},
        }),
      ),
    );
    for (const w of workers) {
      // no second pass over each line as white-on-black: scans are dark on light, and it costs time on every page
      await w.setParameters({ tessedit_pageseg_mode: Tesseract.PSM.AUTO, tessedit_do_invert: "0" });
      scheduler.addWorker(w);
    }
    return scheduler as unknown as Scheduler;
  })();
  engine.catch(() => {
    engine = undefined;
  });
  return engine;
}

/**
 * Reads one page image: Tesseract's blocks in reading order (pdf-ocr-layout.ts), paragraphs apart. Only the TSV
 * is asked for: the plain text would be a second walk over the page's results, never used.
 */
export async function readPageImage(image: Buffer): Promise<PageReading> {
  const { data } = await (await ocrEngine()).addJob("recognize", image, {}, { text: false, tsv: true });
  const paragraphs = readingOrder(blocksFromTsv(data.tsv ?? "")).flatMap((b) =>
    b.paragraphs.map((p) => p.lines.filter(Boolean).join("\n")),
  );
  return { text: paragraphs.filter(Boolean).join("\n\n"), confidence: data.confidence };
}

/** An upload being read by the parse pool: pages so far (or, `ocr`, scanned pages read so far). */
export interface UploadProgress {
  name: string;
  done: number;
  total: number;
  ocr: boolean;
}

export type ProgressFn = (done: number, total: number, phase?: "ocr") => void;

/** Uploads being read by the parse pool (before their document row exists), for the console's live view. */
export function createUploadProgress() {
  const reading = new Map<number, UploadProgress & { deploymentId: string }>();
  let seq = 0;
  return {
    /** Runs `fn` while the upload is listed; `fn` reports through the progress function it is given. */
    async track<T>(
      deploymentId: string,
      name: string,
      report: ProgressFn | undefined,
      fn: (onProgress: ProgressFn) => Promise<T>,
    ): Promise<T> {
      const key = ++seq;
      const entry = { deploymentId, name: name.split(/[\\/]/).pop() ?? name, done: 0, total: 0, ocr: false };
      reading.set(key, entry);
      try {
        return await fn((done, total, phase) => {
          Object.assign(entry, { done, total, ocr: phase === "ocr" });
          report?.(done, total, phase);
        });
      } finally {
        reading.delete(key);
      }
    },
    of(deploymentId: string): UploadProgress[] {
      return [...reading.values()].filter((r) => r.deploymentId === deploymentId).map(({ deploymentId: _, ...r }) => r);
    },
  };
}

import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

/** Bytes start..end of a file on disk (an upload's spool file holds its multipart envelope too). */
export interface FileRange {
  path: string;
  start: number;
  end: number;
}

/** A document to store: a file on disk (read, never moved or deleted) or bytes in memory. */
export interface DocumentSource {
  file?: string | FileRange;
  bytes?: Uint8Array;
}

/** A file range as a Blob (read lazily). */
export const sliceOf = (f: FileRange, start = f.start, end = f.end) => Bun.file(f.path).slice(start, end);

/** SHA-256 of a file range, read in slices so a large file never blocks the event loop. */
export async function hashFile(file: FileRange): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const part of sliceOf(file).stream()) hasher.update(part);
  return hasher.digest("hex");
}

/** Spool files a day old belong to no request or parse still running (a crash left them). */
function sweep(dir: string): void {
  const cutoff = Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    } catch {}
  }
}

/**
 * The private folder for uploads in flight: a document pushed as bytes is written here for the parse pool to read,
 * and removed when its push is over; what a crash left behind is swept at start.
 */
export function createUploadSpool(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  sweep(dir);
  let seq = 0;
  const spoolPath = () => join(dir, `upload-${process.pid}-${++seq}-${randomBytes(6).toString("hex")}`);
  return {
    /** Runs `fn` with the source as a file range on disk: the caller's file, or the bytes written to the spool. */
    async withFile<T>(source: DocumentSource, fn: (file: FileRange) => Promise<T>): Promise<T> {
      if (typeof source.file === "string") return await fn({ path: source.file, start: 0, end: Bun.file(source.file).size });
      if (source.file) return await fn(source.file);
      const path = spoolPath();
      await Bun.write(path, source.bytes ?? new Uint8Array());
      try {
        return await fn({ path, start: 0, end: Bun.file(path).size });
      } finally {
        await Bun.file(path)
          .delete()
          .catch(() => {});
      }
    },
  };
}

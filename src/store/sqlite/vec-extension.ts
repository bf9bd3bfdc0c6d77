import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// Embedded as a file so `bun build --compile` carries it; SQLite cannot load from inside the bundle,
// so the bytes are written to the data dir (content-addressed) and loaded from there.
import vecLinuxX64 from "../../../node_modules/sqlite-vec-linux-x64/vec0.so" with { type: "file" };

/** Returns a path SQLite can load the sqlite-vec extension from. */
export async function extractVecExtension(dataDir: string): Promise<string> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    const { getLoadablePath } = await import("sqlite-vec");
    return getLoadablePath();
  }
  const bytes = new Uint8Array(await Bun.file(vecLinuxX64).arrayBuffer());
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  // SQLite derives the init symbol from the file name, so the name stays vec0.so and the hash names the folder.
  const dir = join(dataDir, "lib", `sqlite-vec-${hash}`);
  const target = join(dir, "vec0.so");
  if (!existsSync(target)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes, { mode: 0o755 });
    renameSync(tmp, target);
  }
  return target;
}

import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * `docchat serve` holds `<data>/docchat.pid` while it runs. Other CLI commands share the data dir freely (WAL);
 * only `restore`, which swaps the database file underneath, and a second `serve` refuse while it is held.
 * A pid file left by a crash is stale as soon as its process is gone.
 */
export function serverLockPath(dataDir: string): string {
  return join(dataDir, "docchat.pid");
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // A recycled pid belongs to some other program: on Linux, check it is still a docchat server.
  const cmdline = `/proc/${pid}/cmdline`;
  if (existsSync("/proc/self/cmdline")) {
    try {
      return readFileSync(cmdline, "utf8").split("\0").includes("serve");
    } catch {
      return false;
    }
  }
  return true;
}

/** The pid of the live server holding the data dir, or null. */
export function serverHoldingDataDir(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(serverLockPath(dataDir), "utf8");
  } catch {
    return null;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return pid !== process.pid && alive(pid) ? pid : null;
}

/** Takes the data dir for this server process; throws if another live server holds it. Returns the release. */
export function acquireServerLock(dataDir: string): () => void {
  const path = serverLockPath(dataDir);
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw e;
      const holder = serverHoldingDataDir(dataDir);
      if (holder !== null) throw new Error(`another docchat server (pid ${holder}) is using ${dataDir}; stop it first`);
      unlinkSync(path);
    }
  }
  return () => {
    try {
      if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
    } catch {
      // already gone
    }
  };
}

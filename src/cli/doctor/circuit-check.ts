import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config/index.ts";
import { CIRCUIT_STATUS_FILE, type CircuitStatusFile } from "../../net/circuit-registry.ts";
import type { Check } from "./checks.ts";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const clock = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

/**
 * The model servers' circuits as the serving process on this data dir last wrote them (net/circuit-registry.ts):
 * an open one means answers go on without that server (keyword retrieval, no rerank, or 503 for the chat model).
 */
export function checkCircuits(config: Config): Check {
  const path = join(config.dataDir, CIRCUIT_STATUS_FILE);
  if (!existsSync(path)) return { status: "ok", summary: "no model server circuit has opened", circuits: [] };
  let file: CircuitStatusFile;
  try {
    file = JSON.parse(readFileSync(path, "utf8")) as CircuitStatusFile;
  } catch {
    return { status: "warn", summary: `${path} cannot be read`, circuits: [] };
  }
  const running = alive(file.pid);
  const open = file.circuits.filter((c) => c.state !== "closed");
  const who = running ? `process ${file.pid}` : `process ${file.pid}, no longer running`;
  if (open.length === 0 || !running)
    return {
      status: "ok",
      summary: open.length === 0 ? `all closed (${who})` : `none open now (last seen by ${who})`,
      pid: file.pid,
      running,
      circuits: file.circuits,
    };
  const what = open
    .map(
      (c) => `${c.name} (${c.url}) open since ${clock(c.openedAt ?? file.updatedAt)} after ${c.failures} failures: ${c.lastError ?? "?"}`,
    )
    .join("; ");
  return {
    status: "warn",
    summary: `${what} — answers go on without it until a probe succeeds (${who})`,
    pid: file.pid,
    running,
    circuits: file.circuits,
  };
}

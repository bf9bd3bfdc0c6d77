import { renameSync, writeFileSync } from "node:fs";
import type { Logger } from "../log.ts";
import { type CircuitBreaker, type CircuitSnapshot, createCircuitBreaker } from "./circuit-breaker.ts";

/** What a process writes to its data dir when a model server's circuit changes, for `docchat doctor` to read. */
export interface CircuitStatusFile {
  pid: number;
  updatedAt: number;
  circuits: CircuitSnapshot[];
}

export const CIRCUIT_STATUS_FILE = "model-circuits.json";

/**
 * One circuit per model server (embeddings, rerank, chat model), built once by the composition root. Each change
 * of state is logged and written to the status file (`null`: no file), so doctor and metrics see what this node
 * sees.
 */
export function createCircuitRegistry(opts: { failures: number; coolDownMs: number; statusFile: string | null; log?: Logger }) {
  const circuits = new Map<string, CircuitBreaker>();
  const snapshots = () => [...circuits.values()].map((c) => c.snapshot());
  const persist = () => {
    if (!opts.statusFile) return;
    const body: CircuitStatusFile = { pid: process.pid, updatedAt: Date.now(), circuits: snapshots() };
    try {
      writeFileSync(`${opts.statusFile}.tmp`, JSON.stringify(body, null, 2));
      renameSync(`${opts.statusFile}.tmp`, opts.statusFile);
    } catch (e) {
      opts.log?.warn("could not write the model circuit status file", { error: String((e as Error).message) });
    }
  };
  return {
    /** The circuit of the `name` server at `url` (one per name). */
    for(name: string, url: string): CircuitBreaker {
      let c = circuits.get(name);
      if (!c) {
        c = createCircuitBreaker({
          name,
          url,
          failures: opts.failures,
          coolDownMs: opts.coolDownMs,
          onChange: (s) => {
            if (s.state === "open")
              opts.log?.warn(`${name} server circuit open: answers go on without it until a probe succeeds`, {
                url: s.url,
                failures: s.failures,
                retryInMs: opts.coolDownMs,
                error: s.lastError,
              });
            else if (s.state === "closed") opts.log?.info(`${name} server circuit closed: the server answers again`, { url: s.url });
            persist();
          },
        });
        circuits.set(name, c);
      }
      return c;
    },
    snapshots,
  };
}

export type CircuitRegistry = ReturnType<typeof createCircuitRegistry>;

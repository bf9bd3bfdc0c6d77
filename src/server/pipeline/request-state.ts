import { randomUUID } from "node:crypto";
import { appError } from "../../errors/index.ts";
import type { EndpointName } from "./endpoints.ts";
import type { GateResult } from "./gate.ts";

export interface RequestState {
  requestId: string;
  started: number;
  endpoint?: EndpointName;
  clientIp: string;
  gate?: GateResult;
  /** frees this request's upload slot (once the response is sent) */
  release?: () => void;
}

/** Per-request state keyed by the Request object, so hooks and handlers share it without globals. */
export function createRequestState() {
  const states = new WeakMap<Request, RequestState>();
  return {
    init(request: Request): RequestState {
      const st: RequestState = { requestId: randomUUID(), started: performance.now(), clientIp: "0.0.0.0" };
      states.set(request, st);
      return st;
    },
    get(request: Request): RequestState {
      return states.get(request) ?? this.init(request);
    },
    /** The gate's verdict for a gated endpoint; a handler without one is a wiring bug, not a client error. */
    gateOf(request: Request): GateResult {
      const g = states.get(request)?.gate;
      if (!g) throw appError("internal_error");
      return g;
    },
  };
}

export type RequestStates = ReturnType<typeof createRequestState>;

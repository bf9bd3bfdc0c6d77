import { Elysia } from "elysia";
import type { Services } from "../../app.ts";
import { endpointPath } from "./endpoints.ts";
import type { RequestStates } from "./request-state.ts";

/**
 * Per-request series and the debug request log, after the response is sent. They cost a few µs on every
 * request, so the hook exists only when metrics are on or the log level is debug.
 */
export function metricsPlugin(services: Services, state: RequestStates) {
  const { config, log } = services;
  const plugin = new Elysia({ name: "metrics" });
  const metricsOn = config.metricsToken !== "";
  const debug = config.logLevel === "debug";
  if (!metricsOn && !debug) return plugin;
  return plugin.onAfterResponse({ as: "global" }, ({ request, set, route, responseValue }) => {
    const st = state.get(request);
    const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
    const ms = performance.now() - st.started;
    if (metricsOn) {
      // The route pattern, never the raw path: ids and junk paths must not each become a time series.
      // A request refused by the gate before routing is counted under its endpoint's documented path.
      const label = route || (st.endpoint ? endpointPath(st.endpoint) : "unmatched");
      services.metrics.request({ route: label, method: request.method, status, seconds: ms / 1000 });
    }
    if (debug) log.debug("request", { id: st.requestId, method: request.method, path: st.path, status: set.status, ms: Math.round(ms) });
  });
}

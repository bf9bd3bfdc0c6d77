import type PromClient from "prom-client";
import type { CircuitSnapshot } from "../net/circuit-breaker.ts";

export type AnswerOutcome = "answered" | "refused" | "correction" | "error";

/** Read at scrape time, so the gauges cost nothing between scrapes. */
export interface QueueDepths {
  trainingQueue(): Promise<number>;
  mailOutbox(): Promise<number>;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The Prometheus registry of one running service, built once by the composition root (never the library's
 * global registry, so two services in one process — tests — never share counters). With metrics off
 * (`enabled: false`, no DOCCHAT_METRICS_TOKEN) nothing is counted and prom-client is never loaded: start-up
 * stays quick.
 */
export function createMetrics(deps: {
  depths: QueueDepths;
  webhookOutbox?: () => Promise<number>;
  circuits?: () => CircuitSnapshot[];
  enabled?: boolean;
}): Metrics {
  if (deps.enabled === false) return noMetrics;
  const { Counter, Gauge, Histogram, Registry } = require("prom-client") as typeof PromClient;
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({
    name: "docchat_http_requests_total",
    help: "HTTP requests by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers,
  });
  const latency = new Histogram({
    name: "docchat_http_request_duration_seconds",
    help: "Time from request to response start, by route pattern, method and status (a stream counts until its headers).",
    labelNames: ["route", "method", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const answers = new Counter({
    name: "docchat_answers_total",
    help: "Chat answers by outcome: answered, refused (not grounded), correction (owner's reply), error.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const tokens = new Counter({
    name: "docchat_tokens_debited_total",
    help: "Tokens debited from account balances for answers.",
    registers,
  });
  let modelWaiting = 0;
  new Gauge({
    name: "docchat_model_queue_depth",
    help: "Answers waiting for a model slot.",
    registers,
    collect() {
      this.set(modelWaiting);
    },
  });
  const modelWait = new Histogram({
    name: "docchat_model_queue_wait_seconds",
    help: "Time an answer waited for a model slot.",
    buckets: LATENCY_BUCKETS,
    registers,
  });
  new Gauge({
    name: "docchat_training_queue_depth",
    help: "Documents queued or being trained.",
    registers,
    async collect() {
      this.set(await deps.depths.trainingQueue());
    },
  });
  new Gauge({
    name: "docchat_mail_outbox_depth",
    help: "Owner mails waiting to be delivered (pending or being sent).",
    registers,
    async collect() {
      this.set(await deps.depths.mailOutbox());
    },
  });
  const webhookOutbox = deps.webhookOutbox;
  if (webhookOutbox)
    new Gauge({
      name: "docchat_webhook_outbox_depth",
      help: "Webhook deliveries waiting (pending, retrying or being sent).",
      registers,
      async collect() {
        this.set(await webhookOutbox());
      },
    });

  new Gauge({
    name: "docchat_model_circuit_open",
    help: "1 while a model server's circuit is open or half-open (calls to it fail at once), by server: embeddings, rerank, llm.",
    labelNames: ["server"] as const,
    registers,
    collect() {
      for (const c of deps.circuits?.() ?? []) this.set({ server: c.name }, c.state === "closed" ? 0 : 1);
    },
  });

  return {
    contentType: registry.contentType,
    /** The exposition text for GET /metrics. */
    scrape: () => registry.metrics(),
    request(input: { route: string; method: string; status: number; seconds: number }) {
      const method = METHODS.has(input.method) ? input.method : "OTHER";
      const labels = { route: input.route, method, status: String(input.status) };
      requests.inc(labels);
      latency.observe(labels, input.seconds);
    },
    answer(outcome: AnswerOutcome) {
      answers.inc({ outcome });
    },
    debited(n: number) {
      if (n > 0) tokens.inc(n);
    },
    /** Model queue observer (see llm/queue-observer.ts). */
    modelQueue: {
      waiting(delta: 1 | -1) {
        modelWaiting += delta;
      },
      waited(seconds: number) {
        modelWait.observe(seconds);
      },
    },
  };
}

export interface Metrics {
  contentType: string;
  scrape(): Promise<string>;
  request(input: { route: string; method: string; status: number; seconds: number }): void;
  answer(outcome: AnswerOutcome): void;
  debited(n: number): void;
  modelQueue: { waiting(delta: 1 | -1): void; waited(seconds: number): void };
}

const noMetrics: Metrics = {
  contentType: "text/plain; version=0.0.4; charset=utf-8",
  scrape: async () => "",
  request() {},
  answer() {},
  debited() {},
  modelQueue: { waiting() {}, waited() {} },
};

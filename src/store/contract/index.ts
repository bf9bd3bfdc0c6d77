/**
 * The store contract, for services, routes and tools: records and repository interfaces (README.md says what
 * each promises). Drivers import the row mappers from the *.contract.ts files themselves.
 */
export type * from "./accounts.contract.ts";
export type * from "./chat-log-export.contract.ts";
export type * from "./chat-logs.contract.ts";
export type * from "./chunk-index.contract.ts";
export type * from "./corrections.contract.ts";
export type * from "./deployments.contract.ts";
export type * from "./documents.contract.ts";
export type * from "./keys.contract.ts";
export type * from "./leads.contract.ts";
export type * from "./neighbours.contract.ts";
export type * from "./outbox.contract.ts";
export type * from "./owner.contract.ts";
export type * from "./owner-insight.contract.ts";
export type * from "./rate-limits.contract.ts";
export type * from "./reports.contract.ts";
export { emptyDay } from "./reports.contract.ts";
export type * from "./store.contract.ts";
export type * from "./training.contract.ts";
export type * from "./webhooks.contract.ts";

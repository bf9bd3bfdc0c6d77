import { badge } from "../../shared/dom.ts";

const TRAINING: Record<string, [string, "ok" | "warn" | "bad" | "busy" | "muted"]> = {
  none: ["Not trained", "muted"],
  stored: ["Stored, not trained", "muted"],
  queued: ["Queued", "busy"],
  processing: ["Processing…", "busy"],
  completed: ["Completed", "ok"],
  failed: ["Failed", "bad"],
};

export const isBusy = (status: string) => status === "queued" || status === "processing";

export function trainingBadge(status: string): HTMLElement {
  const [label, tone] = TRAINING[status] ?? [status, "muted"];
  return badge(label, tone);
}

const DELIVERY: Record<string, [string, "ok" | "warn" | "bad" | "busy" | "muted"]> = {
  sent: ["Mail sent", "ok"],
  logged: ["Mail off (logged)", "muted"],
  queued: ["Mail queued", "busy"],
  retrying: ["Retrying", "warn"],
  "dead-lettered": ["Dead-lettered", "bad"],
  none: ["No mail", "muted"],
};

export function deliveryBadge(state: string): HTMLElement {
  const [label, tone] = DELIVERY[state] ?? [state, "muted"];
  return badge(label, tone);
}

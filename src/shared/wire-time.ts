/** Times are stored in milliseconds and sent in whole seconds (Unix time), like `created` in the chat format. */
export function toSeconds(ms: number): number;
export function toSeconds(ms: number | null): number | null;
export function toSeconds(ms: number | null): number | null {
  return ms === null ? null : Math.floor(ms / 1000);
}

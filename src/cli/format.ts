/** Readable output for humans: `key: value` lines; nested values as compact JSON. */
export function formatHuman(result: Record<string, unknown>): string {
  return Object.entries(result)
    .map(([k, v]) => {
      if (Array.isArray(v) && v.every((x) => x && typeof x === "object")) {
        return `${k}:\n${v
          .map(
            (x) =>
              `  - ${Object.entries(x as object)
                .map(([a, b]) => `${a}=${typeof b === "object" ? JSON.stringify(b) : String(b)}`)
                .join("  ")}`,
          )
          .join("\n")}`;
      }
      return `${k}: ${v !== null && typeof v === "object" ? JSON.stringify(v) : String(v)}`;
    })
    .join("\n");
}

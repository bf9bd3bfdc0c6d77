/**
 * A terminal progress bar: documents done of total, pages, rate and ETA, redrawn at most every 100 ms through
 * the command's status line (which is silent off a terminal and with --json).
 */
export function createProgressBar(status: (line: string) => void, opts: { total: number; label: string; width?: number }) {
  const started = performance.now();
  const width = opts.width ?? 24;
  let done = 0;
  let pages = 0;
  let failed = 0;
  let total = opts.total;
  let drawnAt = 0;
  const draw = (force = false) => {
    const now = performance.now();
    if (!force && now - drawnAt < 100) return;
    drawnAt = now;
    const seconds = (now - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
    const eta = rate > 0 && total > done ? formatDuration((total - done) / rate) : "—";
    const parts = [`${opts.label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} documents`];
    if (pages > 0) parts.push(`${pages} pages`);
    if (failed > 0) parts.push(`${failed} failed`);
    parts.push(`${rate.toFixed(rate < 10 ? 1 : 0)}/s`, `ETA ${eta}`);
    status(parts.join(" · "));
  };
  return {
    /** one more document finished (with its pages), or failed */
    tick(p: { pages?: number | null; failed?: boolean } = {}) {
      done++;
      pages += p.pages ?? 0;
      if (p.failed) failed++;
      draw(done === total);
    },
    /** absolute progress (training: counted from the store) */
    set(p: { done: number; total?: number; failed?: number }) {
      done = p.done;
      if (p.total !== undefined) total = p.total;
      if (p.failed !== undefined) failed = p.failed;
      draw();
    },
    finish() {
      draw(true);
      status("");
    },
  };
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

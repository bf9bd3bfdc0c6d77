import { h, svg } from "../shared/dom.ts";

export interface Series {
  label: string;
  values: number[];
  /** CSS class giving the colour (fill or stroke) */
  tone: string;
}

const W = 640;
const H = 220;
const PAD = { left: 40, right: 12, top: 12, bottom: 28 };

function niceMax(n: number): number {
  if (n <= 4) return 4;
  const p = 10 ** Math.floor(Math.log10(n));
  return Math.ceil(n / p) * p;
}

function frame(labels: string[], max: number): SVGElement[] {
  const out: SVGElement[] = [];
  const ih = H - PAD.top - PAD.bottom;
  for (let i = 0; i <= 4; i++) {
    const y = PAD.top + ih - (ih * i) / 4;
    out.push(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: "grid" }));
    out.push(svg("text", { x: PAD.left - 6, y: y + 4, class: "axis", "text-anchor": "end" }, String(Math.round((max * i) / 4))));
  }
  const step = Math.max(1, Math.ceil(labels.length / 8));
  const iw = (W - PAD.left - PAD.right) / labels.length;
  labels.forEach((l, i) => {
    if (i % step === 0)
      out.push(svg("text", { x: PAD.left + iw * (i + 0.5), y: H - 8, class: "axis", "text-anchor": "middle" }, l.slice(5)));
  });
  return out;
}

function legend(series: Series[]): HTMLElement {
  return h(
    "div",
    { class: "legend" },
    series.map((s) => h("span", { class: "legend-item" }, h("span", { class: `swatch ${s.tone}` }), s.label)),
  );
}

/** Grouped bars per day, drawn by hand as SVG (no chart library); each bar has a tooltip title. */
export function barChart(title: string, days: string[], series: Series[]): HTMLElement {
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const ih = H - PAD.top - PAD.bottom;
  const slot = (W - PAD.left - PAD.right) / Math.max(1, days.length);
  const bw = Math.max(1, (slot * 0.8) / series.length);
  const bars = series.flatMap((s, si) =>
    s.values.map((v, i) => {
      const bh = (ih * v) / max;
      const x = PAD.left + slot * i + slot * 0.1 + bw * si;
      return svg(
        "rect",
        { x, y: PAD.top + ih - bh, width: bw, height: Math.max(bh, 0), class: `bar ${s.tone}` },
        svg("title", {}, `${days[i]} · ${s.label}: ${v}`),
      );
    }),
  );
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title, class: "chart" }, ...frame(days, max), ...bars);
  return h("figure", { class: "chart-box" }, h("figcaption", null, title), chart, legend(series));
}

/** A line per series over the days. */
export function lineChart(title: string, days: string[], series: Series[]): HTMLElement {
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const ih = H - PAD.top - PAD.bottom;
  const slot = (W - PAD.left - PAD.right) / Math.max(1, days.length);
  const x = (i: number) => PAD.left + slot * (i + 0.5);
  const y = (v: number) => PAD.top + ih - (ih * v) / max;
  const lines = series.flatMap((s) => [
    svg("polyline", { points: s.values.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: `line ${s.tone}` }),
    ...s.values.map((v, i) =>
      svg(
        "circle",
        { cx: x(i), cy: y(v), r: days.length > 60 ? 1.5 : 3, class: `dot ${s.tone}` },
        svg("title", {}, `${days[i]} · ${s.label}: ${v}`),
      ),
    ),
  ]);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title, class: "chart" }, ...frame(days, max), ...lines);
  return h("figure", { class: "chart-box" }, h("figcaption", null, title), chart, legend(series));
}

// A small SVG line chart over a fixed time window: one line per series,
// gaps where a series has no sample (a peer down, nobody watching).
import { h, svg } from "./lib.js";

const COLORS = ["#2364c8", "#d9822b", "#1d8a4e", "#8e44ad", "#c0342b", "#138d90", "#7f8c2d", "#b0337f"];

// color gives each series name a stable colour for the page's life.
const assigned = new Map();
export function color(name) {
  if (!assigned.has(name)) assigned.set(name, COLORS[assigned.size % COLORS.length]);
  return assigned.get(name);
}

function niceMax(v) {
  if (v <= 1) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

function fmt(v, unit) {
  if (unit === "s") return v >= 10 ? v.toFixed(0) + " s" : v.toFixed(v >= 1 ? 1 : 2).replace(/\.?0+$/, "") + " s";
  return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 0 : 1) + "k" : String(Math.round(v));
}

// lineChart draws series {name: [[tMS, value|null], ...]} over
// [now - windowMS, now].
export function lineChart(series, { nowMS, windowMS, unit, stepMS }) {
  const W = 640, H = 220, L = 48, R = 12, T = 12, B = 26;
  const names = Object.keys(series).sort();
  let maxV = 0;
  for (const n of names) for (const [, v] of series[n]) if (v !== null) maxV = Math.max(maxV, v);
  let top = niceMax(maxV);
  if (unit === "ops" && top <= 12) top = Math.max(4, Math.ceil(top / 4) * 4); // whole ops on every grid line
  const x = (t) => L + ((t - (nowMS - windowMS)) / windowMS) * (W - L - R);
  const y = (v) => T + (1 - v / top) * (H - T - B);
  const root = svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img" });
  for (let i = 0; i <= 4; i++) {
    const v = (top * i) / 4;
    root.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }),
      svg("text", { class: "axis", x: L - 6, y: y(v) + 4, "text-anchor": "end" }, fmt(v, unit)));
  }
  for (let m = 0; m <= 15; m += 5) {
    const t = nowMS - m * 60000;
    root.append(svg("text", { class: "axis", x: x(t), y: H - 8, "text-anchor": m === 0 ? "end" : m === 15 ? "start" : "middle" }, m === 0 ? "now" : "−" + m + " min"));
  }
  const gap = Math.max(stepMS * 3, 6000);
  for (const n of names) {
    let d = "", prev = null, last = null;
    for (const [t, v] of series[n]) {
      if (v === null || t < nowMS - windowMS) { prev = null; continue; }
      d += (prev === null || t - prev > gap ? "M" : "L") + x(t).toFixed(1) + " " + y(v).toFixed(1) + " ";
      prev = t;
      last = [t, v];
    }
    if (d) root.append(svg("path", { class: "line", d, stroke: color(n) }));
    if (last) root.append(svg("circle", { cx: x(last[0]).toFixed(1), cy: y(last[1]).toFixed(1), r: 3, fill: color(n) })); // the latest value
  }
  const legend = h("div", { class: "legend" }, names.length ? names.map((n) => h("span", {}, h("span", { class: "sw", "data-color": color(n) }), n)) : h("span", {}, "No samples yet."));
  for (const sw of legend.querySelectorAll(".sw")) sw.style.background = sw.dataset.color;
  return h("div", {}, root, legend);
}

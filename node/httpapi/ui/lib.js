// Shared helpers of the console: element building (text only, never
// HTML strings), the API client, and formatting.

// h builds an element: h("td", {class: "num", title: "x"}, "text", child).
// Attributes starting with "on" take a listener; others are set as
// attributes. Children are nodes or text; null and false are skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// svg builds an SVG element the same way.
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

// The session: set by app.js after sign-in.
export const session = { info: null };

// ApiError is a refused API call: status and the server's text.
export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

let onSignedOut = () => {};
export function whenSignedOut(fn) { onSignedOut = fn; }

// api calls the console API. GETs made by the page itself (refresh
// polls) pass background: true, which does not keep the session alive.
export async function api(path, { method = "GET", body, background = false } = {}) {
  const headers = { Accept: "application/json" };
  if (background) headers["X-Console-Background"] = "1";
  if (method !== "GET") {
    headers["Content-Type"] = "application/json";
    if (session.info && session.info.csrf_token) headers["X-CSRF-Token"] = session.info.csrf_token;
  }
  const resp = await fetch("api/" + path, {
    method, headers, credentials: "same-origin", cache: "no-store",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await resp.json(); } catch (e) { data = null; }
  if (resp.status === 401 && path !== "signin") {
    onSignedOut((data && data.error) || "signed out");
    throw new ApiError(401, (data && data.error) || "signed out", data);
  }
  if (!resp.ok) throw new ApiError(resp.status, (data && data.error) || resp.statusText, data);
  return data;
}

// query builds a query string of the non-empty values.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== "" && v !== null && v !== undefined) q.set(k, v);
  const s = q.toString();
  return s ? "?" + s : "";
}

// Page readiness, for people (the loading line) and for the browser tests.
export function pageStart(name) {
  document.body.dataset.page = name;
  document.body.dataset.ready = "0";
}
export function pageReady(name) {
  if (document.body.dataset.page !== name || document.body.dataset.ready === "1") return;
  document.body.dataset.ready = "1";
  document.body.dataset.readyAt = String(Math.round(performance.now())); // ms since the navigation began
}

// Formatting.
export function ago(iso) {
  if (!iso) return "never";
  const t = typeof iso === "number" ? iso : Date.parse(iso);
  if (Number.isNaN(t)) return String(iso);
  const s = Math.round((Date.now() - t) / 1000);
  if (s < 2) return "just now";
  if (s < 60) return s + " s ago";
  if (s < 3600) return Math.floor(s / 60) + " min ago";
  if (s < 86400) return Math.floor(s / 3600) + " h ago";
  return Math.floor(s / 86400) + " d ago";
}

export function stamp(iso) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso || "";
  const d = new Date(t);
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

// hlcTime is the wall time of an HLC stamp, as an ISO string.
export function hlcTime(hlc) {
  const ms = parseInt(String(hlc || "").slice(0, 13), 10);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : "";
}

export function short(id, n = 10) {
  if (!id) return "";
  const s = String(id);
  const i = s.indexOf("_");
  const body = i >= 0 ? s.slice(i + 1) : s;
  return body.length > n ? (i >= 0 ? s.slice(0, i + 1) : "") + body.slice(0, n) + "…" : s;
}

export function num(n) { return n === null || n === undefined ? "—" : Number(n).toLocaleString("en-US"); }

// statePill is a coloured pill for a member state or an event status.
const TONES = {
  alive: "ok", suspect: "warn", dead: "bad", left: "idle", refused: "bad",
  open: "info", claimed: "warn", ready: "warn", applied: "ok", superseded: "idle", blocked: "bad", failed: "bad",
};
export function pill(text, tone) {
  return h("span", { class: "pill " + (tone || TONES[text] || "idle") }, text);
}

export function empty(text, cols) {
  return cols ? h("tr", {}, h("td", { class: "empty", colspan: cols }, text)) : h("div", { class: "empty" }, text);
}

export function notice(kind, ...text) { return h("div", { class: "notice " + kind }, ...text); }

export function head(title, sub, ...right) {
  return h("div", { class: "page-head" }, h("div", {}, h("h1", {}, title), sub ? h("div", { class: "sub" }, sub) : null), h("div", {}, ...right));
}

export function agentLink(name) {
  return name ? h("a", { href: "#/agent/" + encodeURIComponent(name) }, name) : h("span", { class: "muted" }, "—");
}

export function threadLink(id, text) {
  return id ? h("a", { href: "#/thread/" + encodeURIComponent(id), class: "mono" }, text || short(id, 14)) : null;
}

// eventRow is one event in a list: when, who to whom, what, and a body
// preview.
export function eventRow(e, fresh) {
  const thread = e.correlation_id || (e.status === "open" ? e.id : "");
  return h("div", { class: "ev" + (fresh ? " fresh" : ""), dataset: { id: e.id } },
    h("div", { class: "when", title: e.created_at }, stamp(hlcTime(e.hlc) || e.created_at)),
    h("div", { class: "meta" },
      h("span", { class: "route" }, agentLink(e.from_agent), " → ", e.to_agent === "*" ? "everyone" : agentLink(e.to_agent)),
      h("span", { class: "badge" }, e.type),
      e.status ? pill(e.status) : null,
      h("span", { class: "muted" }, e.stream + " / " + e.room + (e.topic ? " / " + e.topic : "")),
      thread ? threadLink(thread, "thread " + short(thread, 10)) : null),
    e.body ? h("div", { class: "body" }, e.body + (e.body_truncated ? " …" : "")) : null);
}

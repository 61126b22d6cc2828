// Streams (counts and last activity), one stream's events paged back
// from the newest, and a thread as a timeline with its artifacts inline.
import { h, api, ago, num, pill, empty, head, short, notice, eventRow, stamp, hlcTime, agentLink, query, pageStart, pageReady } from "./lib.js";

export function streamsPage(main) {
  pageStart("streams");
  const body = h("tbody", {}, empty("Loading…", 3));
  main.append(head("Streams", "Every stream this token can read, the most recently active first."),
    h("div", { class: "panel flush" }, h("table", { id: "streams" },
      h("thead", {}, h("tr", {}, h("th", {}, "Stream"), h("th", { class: "num" }, "Events"), h("th", {}, "Last activity"))), body)));
  api("streams").then((d) => {
    body.replaceChildren(...(d.streams.length ? d.streams.map((s) => h("tr", {},
      h("td", {}, h("a", { href: "#/stream/" + encodeURIComponent(s.stream) }, h("strong", {}, s.stream))),
      h("td", { class: "num", title: s.capped ? "at least; the console counts up to " + num(s.events) + " events a stream" : "" }, num(s.events) + (s.capped ? "+" : "")),
      h("td", { title: s.last_active }, ago(s.last_active), h("span", { class: "muted" }, " · " + stamp(s.last_active)))))
      : [empty("No stream holds an event this token can read.", 3)]),
      ...(d.more ? [h("tr", {}, h("td", { class: "muted", colspan: 3 }, "Less recently active streams are not listed."))] : []));
    pageReady("streams");
  }).catch((e) => { if (e.status !== 401) body.replaceChildren(empty(e.message, 3)); });
}

export function streamPage(main, stream) {
  pageStart("stream");
  const list = h("div", { class: "ev-list", id: "events" }, empty("Loading…"));
  const more = h("button", { type: "button", class: "plain", hidden: true }, "Older events");
  let before = "";
  main.append(head(stream, "Stream · newest first",
    h("a", { href: "#/tail?stream=" + encodeURIComponent(stream) }, h("button", { type: "button", class: "plain" }, "Tail this stream"))),
  h("div", { class: "panel flush" }, list), h("div", { class: "actions" }, more));
  async function load() {
    more.disabled = true;
    try {
      const d = await api("events" + query({ stream, before, limit: 50 }));
      if (!before) list.replaceChildren();
      list.append(...d.events.map((e) => eventRow(e)));
      if (!list.children.length) list.append(empty("No events."));
      before = d.before || "";
      more.hidden = !before;
      pageReady("stream");
    } catch (e) {
      if (e.status !== 401) list.replaceChildren(notice("bad", e.message));
    }
    more.disabled = false;
  }
  more.addEventListener("click", load);
  load();
}

export function threadPage(main, id) {
  pageStart("thread");
  const steps = h("div", { class: "timeline", id: "timeline" }, empty("Loading…"));
  const more = h("button", { type: "button", class: "plain", hidden: true }, "Later events");
  const summary = h("div", { class: "sub" }, "Thread");
  main.append(h("div", { class: "page-head" }, h("div", {}, h("h1", { class: "mono" }, id), summary),
    h("a", { href: "#/compose?mode=answer&thread=" + encodeURIComponent(id) }, h("button", { type: "button", class: "plain" }, "Answer in this thread…"))),
  steps, h("div", { class: "actions" }, more));
  let cursor = "", count = 0;
  const asked = new Map(); // the thread's events so far (oldest first): id → addressee
  async function load() {
    try {
      const d = await api("thread" + query({ id, cursor }));
      if (!cursor) steps.replaceChildren();
      for (const e of d.events) {
        steps.append(step(e, d, asked));
        asked.set(e.id, e.to_agent);
      }
      count += d.events.length;
      if (!count) steps.replaceChildren(empty("No event of this thread is visible to this token."));
      const agents = new Set(), repl = new Set();
      for (const el of steps.querySelectorAll(".step")) { agents.add(el.dataset.from); repl.add(el.dataset.via); }
      summary.textContent = `Thread · ${count} event${count === 1 ? "" : "s"} · ${agents.size} agent${agents.size === 1 ? "" : "s"} · through ${repl.size} replica${repl.size === 1 ? "" : "s"}`;
      cursor = d.cursor || "";
      more.hidden = !cursor;
      pageReady("thread");
    } catch (e) {
      if (e.status !== 401) steps.replaceChildren(notice("bad", e.message));
    }
  }
  more.addEventListener("click", load);
  load();
}

// route says who did what to whom: "alice asked bob", "bob claimed
// alice's ask", "bob answered alice", "bob submitted a patch for alice".
// A claim is as the store counts one: a reply with status claimed from
// an ask's addressee, joined to the ask by ack_of (the acked event was
// addressed to the writer) or else by the thread (the writer was asked
// earlier in it); a claiming ack is a claim too.
function route(e, claim) {
  const to = e.to_agent === "*" ? "everyone" : e.to_agent ? agentLink(e.to_agent) : null;
  const who = agentLink(e.from_agent);
  if (claim) return [who, " claimed ", to ? [to, "'s ask"] : "the ask"];
  if (e.type === "event.ack") return [who, " acknowledged ", to ? [to, "'s ask"] : "an ask"];
  if (e.type === "patch.ready") return [who, " submitted a patch", to ? [" for ", to] : ""];
  if (e.status === "open") return [who, " asked", to ? [" ", to] : ""];
  if (e.status) return [who, " answered", to ? [" ", to] : ""];
  return [who, " wrote", to ? [" to ", to] : ""];
}

function step(e, d, asked) {
  const via = d.replicas[e.origin_replica] || short(e.origin_replica, 10);
  const ack = (() => { try { return (typeof e.metadata === "object" ? e.metadata : {}).ack_of; } catch (x) { return ""; } })();
  const claim = e.status === "claimed" && (ack && asked.has(ack) ? asked.get(ack) === e.from_agent : [...asked.values()].includes(e.from_agent));
  return h("div", { class: "step s-" + (e.status || "none"), dataset: { id: e.id, from: e.from_agent, via, claim: claim ? "1" : "" } },
    h("div", { class: "panel" },
      h("div", { class: "step-head" },
        h("span", { class: "route" }, route(e, claim)),
        e.status ? pill(e.status) : null,
        h("span", { class: "badge" }, e.type),
        h("span", { class: "right", title: e.hlc }, stamp(hlcTime(e.hlc)) + " · via " + via)),
      e.body ? h("p", { class: "body" }, e.body) : null,
      ...e.artifact_ids.map((aid) => artifact(d.artifacts[aid], aid)),
      h("div", { class: "kv" },
        h("span", {}, "id ", h("code", {}, e.id)),
        h("span", {}, e.stream + " / " + e.room + (e.topic ? " / " + e.topic : "")),
        ack ? h("span", {}, "ack of ", h("code", {}, ack)) : null,
        e.branch ? h("span", {}, "branch ", h("code", {}, e.branch)) : null,
        e.base_commit ? h("span", {}, "base ", h("code", {}, e.base_commit)) : null,
        h("span", { title: e.origin_replica }, "origin #" + e.origin_seq))));
}

function artifact(a, id) {
  if (!a) return h("div", { class: "art" }, h("div", { class: "art-head" }, h("code", {}, id), h("span", { class: "muted" }, "not visible to this token")));
  const headEl = h("div", { class: "art-head" }, h("span", { class: "badge" }, a.kind), h("code", {}, a.id),
    h("span", { class: "muted" }, num(a.size_bytes) + " bytes · by " + a.created_by), h("span", { class: "muted mono", title: a.sha256 }, "sha256 " + a.sha256.slice(0, 12)));
  const warn = a.warnings.map((w) => notice("warn", "⚠ " + w));
  const cut = a.cut ? notice("info", "Only the first 256 KiB are shown.") : null;
  return h("div", { class: "art", dataset: { kind: a.kind } }, headEl, warn, a.kind === "patch" ? diff(a.content) : h("pre", {}, a.content), cut);
}

// diff renders a unified diff line by line, coloured by its role.
function diff(text) {
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return h("div", { class: "diff" }, lines.map((l) => {
    let cls = "ctx";
    if (/^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename )/.test(l)) cls = "file";
    else if (l.startsWith("@@")) cls = "hunk";
    else if (l.startsWith("+")) cls = "add";
    else if (l.startsWith("-")) cls = "del";
    return h("div", { class: cls }, l.replace(/\r$/, "␍") || " ");
  }));
}

// The live tail: the newest events, then every event as it commits,
// over the console's stream (the /logstream/stream route), with the list
// filters. The last event shown is kept in the address, so a reload or a
// dropped connection resumes after it.
import { h, api, empty, head, notice, eventRow, query, pageStart, pageReady } from "./lib.js";

const FILTERS = ["stream", "room", "topic", "type", "to_agent", "writer", "correlation_id", "status"];
const KEEP = 500; // events kept on screen

export function tailPage(main, q) {
  pageStart("tail");
  const filters = Object.fromEntries(FILTERS.map((f) => [f, q.get(f) || ""]));
  const inputs = {};
  const form = h("form", { class: "filters", id: "tail-filters", onsubmit: (ev) => { ev.preventDefault(); apply(); } },
    FILTERS.map((f) => h("div", {}, h("label", { for: "f-" + f }, f.replace("_", " ")),
      (inputs[f] = h("input", { id: "f-" + f, value: filters[f], placeholder: "any" })))),
    h("div", { class: "wide actions" }, h("button", { type: "submit" }, "Apply filters")));
  const list = h("div", { class: "ev-list", id: "tail" }, empty("Loading…"));
  const status = h("span", { class: "live" }, h("span", { class: "dot idle" }), "connecting");
  const pause = h("button", { type: "button", class: "plain" }, "Pause");
  const info = h("div", {});
  main.append(head("Live tail", "Events as they commit on this node, newest first.", status, " ", pause),
    h("div", { class: "panel" }, form), info, h("div", { class: "panel flush" }, list));

  let source = null, paused = false, stopped = false, retry = null, lastID = q.get("since") || "", shown = 0;
  const seen = new Set();
  function setStatus(tone, text) { status.replaceChildren(h("span", { class: "dot " + tone }), text); }
  function remember() {
    const params = { ...filters, since: lastID };
    history.replaceState(null, "", "#/tail" + query(params));
  }
  function add(e, fresh) {
    if (seen.has(e.id)) return;
    seen.add(e.id);
    if (shown === 0) list.replaceChildren();
    list.prepend(eventRow(e, fresh));
    shown++;
    while (list.children.length > KEEP) list.lastChild.remove();
  }
  function open(startAfter) {
    const params = { ...filters };
    if (startAfter) params.since_event_id = startAfter;
    else params.cursor = "c1.e30"; // an empty version vector: everything that matches, from the start (the filters matched nothing yet)
    source = new EventSource("api/tail" + query(params));
    source.addEventListener("open", () => setStatus("ok", "live"));
    source.addEventListener("error", () => {
      // Reopen by hand after the last event shown: the browser's own
      // reconnect would send the first start position again.
      close();
      setStatus("warn", "reconnecting");
      api("session", { background: true }).then((s) => {
        if (!s.signed_in) { setStatus("bad", "signed out"); return; }
        if (!paused && !stopped) retry = setTimeout(() => open(lastID), 1500);
      }).catch(() => { if (!paused && !stopped) retry = setTimeout(() => open(lastID), 3000); });
    });
    source.addEventListener("logstream", (m) => {
      const e = JSON.parse(m.data);
      lastID = e.id;
      add(e, true);
      remember();
    });
  }
  function close() {
    clearTimeout(retry);
    if (source) { source.close(); source = null; }
  }
  async function start() {
    try {
      if (lastID) {
        info.replaceChildren(notice("info", "Resumed after ", h("code", {}, lastID), ": events that committed meanwhile follow."));
        list.replaceChildren(empty("Waiting for events…"));
        open(lastID);
      } else {
        const d = await api("events" + query({ ...filters, limit: 50 }));
        list.replaceChildren(...(d.events.length ? [] : [empty("No event matches yet; new ones appear here.")]));
        for (const e of d.events.slice().reverse()) add(e, false);
        if (d.events.length) { lastID = d.events[0].id; remember(); }
        open(lastID);
      }
      pageReady("tail");
    } catch (e) {
      if (e.status !== 401) info.replaceChildren(notice("bad", e.message));
    }
  }
  function apply() {
    for (const f of FILTERS) filters[f] = inputs[f].value.trim();
    close();
    lastID = "";
    shown = 0;
    seen.clear();
    info.replaceChildren();
    remember();
    start();
  }
  pause.addEventListener("click", () => {
    paused = !paused;
    pause.textContent = paused ? "Resume" : "Pause";
    if (paused) { close(); setStatus("idle", "paused"); } else { setStatus("idle", "connecting"); open(lastID); }
  });
  start();
  return () => { stopped = true; close(); };
}

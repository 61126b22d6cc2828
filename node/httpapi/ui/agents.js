// The agents page (the roster with owed counts) and one agent's page
// (its owed asks, awaited replies when the node has that view, and its
// latest events).
import { h, api, ago, num, pill, empty, head, short, notice, eventRow, query, pageStart, pageReady, session } from "./lib.js";

export function agentsPage(main, q) {
  pageStart("agents");
  const all = q.get("all") === "1";
  const body = h("tbody", {}, empty("Loading…", 7));
  const note = h("div", {});
  main.append(
    head("Agents", session.info.admin ? "Every agent that wrote to the log, the replicas it wrote through, and what it still owes." : "The agents of this token's mailboxes."),
    note,
    h("div", { class: "panel flush" }, h("table", { id: "agents" },
      h("thead", {}, h("tr", {}, h("th", {}, "Agent"), h("th", {}, "Writes through"), h("th", { class: "num" }, "Events"),
        h("th", {}, "Last heard"), h("th", { class: "num" }, "Owed"), h("th", { class: "num" }, "Awaiting"), h("th", {}, "Name check"))),
      body)));
  api("agents" + (all ? "?all=1" : "")).then((d) => {
    if (!d.whole_log) {
      note.append(notice("info", `The agents that wrote among the newest ${num(d.roster_events)} events; counts are over those events. `,
        h("a", { href: "#/agents?all=1" }, "Fold the whole log"), " (slower on a long log)."));
    }
    if (!d.awaiting_available) {
      note.append(notice("info", "Awaiting counts (the replies an agent waits for) need the store's awaiting view, which this node does not have yet: owed counts only."));
    }
    body.replaceChildren(...(d.agents.length ? d.agents.map((a) => h("tr", { dataset: { agent: a.agent } },
      h("td", {}, h("a", { href: "#/agent/" + encodeURIComponent(a.agent) }, h("strong", {}, a.agent))),
      h("td", {}, a.replicas.map((r) => h("div", { title: r }, d.replicas[r] ? h("span", {}, d.replicas[r]) : h("span", { class: "mono" }, short(r, 12))))),
      h("td", { class: "num" }, num(a.events)),
      h("td", { title: a.last_seen || "" }, ago(a.last_seen)),
      h("td", { class: "num" }, a.owed ? pill(num(a.owed) + (a.owed_more ? "+" : ""), "warn") : h("span", { class: "muted" }, "0")),
      h("td", { class: "num" }, a.awaiting === null ? h("span", { class: "muted", title: "not available on this node" }, "—") : num(a.awaiting) + (a.awaiting_more ? "+" : "")),
      h("td", {}, a.shared ? h("span", { class: "pill bad", title: `written through ${a.replicas.length} replicas within ${d.window_s / 60} min of each other: two devices share this name and hide each other's asks` }, "two devices") : pill("ok", "ok"))))
      : [empty("No agent has written to the log" + (session.info.admin ? "" : " in this token's scope") + ".", 7)]));
    pageReady("agents");
  }).catch((e) => { if (e.status !== 401) note.replaceChildren(notice("bad", e.message)); });
}

export function agentPage(main, name) {
  pageStart("agent");
  const owed = h("div", { class: "ev-list", id: "owed" }, empty("Loading…"));
  const awaiting = h("div", { class: "ev-list", id: "awaiting" });
  const recent = h("div", { class: "ev-list", id: "recent" });
  const owedHead = h("h2", {}, "Owed");
  main.append(
    head(name, "Agent", h("a", { href: "#/compose?from=&to=" + encodeURIComponent(name) }, h("button", { type: "button", class: "plain" }, "Ask " + name + "…"))),
    h("div", { class: "grid2" },
      h("div", { class: "panel flush" }, owedHead, owed),
      h("div", { class: "panel flush" }, h("h2", {}, "Awaiting replies"), awaiting)),
    h("div", { class: "panel flush" }, h("h2", {}, "Latest events written"), recent));
  const more = h("button", { type: "button", class: "plain", hidden: true }, "Show up to 500");
  owed.after(h("div", { class: "more" }, more));
  const load = (limit) => api("agent" + query({ name, limit })).then((d) => {
    owedHead.textContent = `Owed (${d.owed.length}${d.owed_more ? "+" : ""})`;
    more.hidden = !d.owed_more || limit >= 500;
    owed.replaceChildren(...(d.owed.length ? d.owed.map((e) => withAck(e, name)) : [empty(name + " owes no reply" + (session.info.admin ? "." : " that this token can see."))]));
    awaiting.replaceChildren(d.awaiting === null
      ? h("div", { class: "empty" }, "Not available on this node: the store has no awaiting view yet.")
      : d.awaiting.length ? h("div", {}, d.awaiting.map((e) => eventRow(e))) : empty("Awaits no reply."));
    recent.replaceChildren(...(d.recent.length ? d.recent.map((e) => eventRow(e)) : [empty("No events written" + (session.info.admin ? "." : " that this token can see."))]));
    pageReady("agent");
  }).catch((e) => { if (e.status !== 401) owed.replaceChildren(notice("bad", e.message)); });
  more.addEventListener("click", () => load(500));
  load(50);
}

function withAck(e, agent) {
  const row = eventRow(e);
  row.querySelector(".meta").append(h("a", { href: "#/compose?mode=ack&event=" + encodeURIComponent(e.id) + "&from=" + encodeURIComponent(agent) }, "reply…"));
  return row;
}

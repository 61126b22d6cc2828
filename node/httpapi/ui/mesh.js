// The mesh page: members, lag charts, quarantine and readiness, polled
// twice a second while the page is open.
import { h, api, ago, num, pill, empty, head, short, pageStart, pageReady, notice } from "./lib.js";
import { lineChart } from "./chart.js";

const POLL_MS = 500;

export function meshPage(main) {
  pageStart("mesh");
  let samples = [], last = 0, timer = null, stopped = false;
  let peerUnit = "ops", originUnit = "s", page = null;
  const cards = h("div", { class: "cards" });
  const members = h("tbody", {});
  const peerChart = h("div", {}), originChart = h("div", {});
  const quarantine = h("div", {}), checks = h("div", {});
  const err = h("div", {});
  const seg = (get, set) => {
    const el = h("div", { class: "seg" });
    for (const u of ["ops", "s"]) {
      el.append(h("button", { type: "button", class: get() === u ? "on" : "", onclick: () => { set(u); for (const b of el.children) b.classList.toggle("on", b.textContent === label(u)); charts(); } }, label(u)));
    }
    return el;
  };
  const label = (u) => (u === "ops" ? "ops" : "seconds");
  main.append(
    head("Mesh", "Every member this node knows, replication lag over the last 15 minutes, quarantine and readiness."),
    err, cards,
    h("div", { class: "panel flush" }, h("h2", {}, "Members"),
      h("table", { id: "members" }, h("thead", {}, h("tr", {},
        h("th", {}, "Member"), h("th", {}, "State"), h("th", {}, "Replica"), h("th", {}, "Addresses"), h("th", {}, "Version"),
        h("th", { class: "num" }, "Clock offset"), h("th", { class: "num" }, "Lag ops"), h("th", { class: "num" }, "Lag s"), h("th", {}, "Last sync"))), members)),
    h("div", { class: "grid2" },
      h("div", { class: "panel" }, h("div", { class: "panel-head" }, h("h2", {}, "Replication lag per peer"), seg(() => peerUnit, (u) => (peerUnit = u))), peerChart),
      h("div", { class: "panel" }, h("div", { class: "panel-head" }, h("h2", {}, "Lag per origin"), seg(() => originUnit, (u) => (originUnit = u))), originChart)),
    h("p", { class: "muted caption" }, "The node samples lag every 2 s while a mesh page is open, and keeps 15 minutes; a gap is a time nobody watched."),
    h("div", { class: "grid2" },
      h("div", { class: "panel" }, h("h2", {}, "Quarantine"), quarantine),
      h("div", { class: "panel" }, h("h2", {}, "Readiness"), checks)));

  function charts() {
    if (!page) return;
    const opts = { nowMS: page.now, windowMS: page.history.window_s * 1000, stepMS: page.history.step_s * 1000 };
    const series = (key, unit) => {
      const out = {};
      for (const s of samples) for (const [name, p] of Object.entries(s[key])) {
        (out[name] = out[name] || []).push([s.t, unit === "ops" ? p.ops : p.s]);
      }
      return out;
    };
    peerChart.replaceChildren(lineChart(series("peers", peerUnit), { ...opts, unit: peerUnit }));
    const origins = series("origins", originUnit);
    const named = {};
    const names = Object.fromEntries(page.members.map((m) => [m.replica_id, m.name]));
    for (const [id, pts] of Object.entries(origins)) named[names[id] || short(id, 8)] = pts;
    originChart.replaceChildren(lineChart(named, { ...opts, unit: originUnit }));
  }

  function render(p) {
    page = p;
    const alive = p.members.filter((m) => m.state === "alive").length;
    const lagging = p.origins.filter((o) => o.behind_ops > 0).length;
    const failed = p.checks.filter((c) => !c.ok).map((c) => c.name);
    cards.replaceChildren(
      card("Members alive", `${alive} / ${p.members.length}`, p.members.length - alive ? `${p.members.length - alive} not alive` : "all alive"),
      card("Readiness", p.ready ? pill("ready", "ok") : pill("not ready", "bad"), failed.length ? "failing: " + failed.join(", ") : "every check holds"),
      card("Quarantined", num(p.quarantine.total), p.quarantine.total ? Object.keys(p.quarantine.by_reason).length + " reasons" : "nothing refused"),
      card("Origins behind", String(lagging), lagging ? "catching up" : "caught up with every origin"));
    members.replaceChildren(...p.members.map((m) => h("tr", { dataset: { member: m.name, state: m.state } },
      h("td", {}, h("strong", {}, m.name), m.self ? h("span", { class: "badge self" }, "this node") : null),
      h("td", {}, pill(m.state), m.reason ? h("div", { class: "muted" }, m.reason) : null),
      h("td", { class: "mono", title: m.replica_id }, short(m.replica_id, 12)),
      h("td", { class: "mono" }, addr("http", m.http_addr), addr("grpc", m.grpc_addr), addr("gossip", m.gossip_addr)),
      h("td", {}, m.version || "—"),
      h("td", { class: "num" }, m.self || !m.synced ? "—" : m.clock_offset_ms.toFixed(1) + " ms"),
      h("td", { class: "num" }, m.self ? "—" : m.synced ? num(m.lag_ops) : "—"),
      h("td", { class: "num" }, m.lag_seconds === null || m.self ? "—" : m.lag_seconds.toFixed(2)),
      h("td", {}, m.self ? "—" : m.last_sync ? ago(m.last_sync) : "never"))));
    const reasons = Object.entries(p.quarantine.by_reason).sort();
    quarantine.replaceChildren(reasons.length
      ? h("div", {},
        h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Reason"), h("th", { class: "num" }, "Items"))),
          h("tbody", {}, reasons.map(([r, n]) => h("tr", {}, h("td", {}, pill(r, "bad")), h("td", { class: "num" }, num(n)))))),
        h("h2", { class: "spaced" }, "Newest refused items"),
        h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Received"), h("th", {}, "Origin"), h("th", {}, "Item"), h("th", {}, "Detail"))),
          h("tbody", {}, p.quarantine.recent.map((q) => h("tr", {}, h("td", {}, ago(q.received_at)), h("td", { class: "mono" }, short(q.origin, 8) + " #" + q.origin_seq),
            h("td", { class: "mono" }, short(q.item_id, 12)), h("td", {}, q.reason + ": " + q.detail))))))
      : h("p", { class: "muted" }, "No remote op or artifact was refused."));
    checks.replaceChildren(h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Check"), h("th", { class: "num" }, "Value"), h("th", { class: "num" }, "Threshold"), h("th", {}, ""))),
      h("tbody", {}, p.checks.map((c) => h("tr", {}, h("td", { class: "mono" }, c.name), h("td", { class: "num" }, num(c.value)),
        h("td", { class: "num" }, c.threshold < 0 ? "off" : num(c.threshold)), h("td", {}, pill(c.ok ? "ok" : "failing", c.ok ? "ok" : "bad")))))));
    charts();
  }

  async function poll() {
    try {
      const p = await api("mesh?since=" + last, { background: last > 0 });
      samples = samples.concat(p.history.samples).filter((s) => s.t >= p.now - p.history.window_s * 1000);
      if (p.history.samples.length) last = p.history.samples[p.history.samples.length - 1].t;
      err.replaceChildren();
      render(p);
      pageReady("mesh");
    } catch (e) {
      if (e.status === 401) return;
      err.replaceChildren(notice("bad", "Could not read the mesh: " + e.message));
    }
    if (!stopped) timer = setTimeout(poll, POLL_MS);
  }
  poll();
  return () => { stopped = true; clearTimeout(timer); };
}

function card(labelText, value, hint) {
  return h("div", { class: "card" }, h("div", { class: "label" }, labelText), h("div", { class: "value" }, value), h("div", { class: "hint" }, hint));
}

function addr(kind, a) {
  return a ? h("div", {}, h("span", { class: "muted" }, kind + " "), a) : null;
}

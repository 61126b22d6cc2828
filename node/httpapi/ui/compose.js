// Compose: a person writes an ask, an answer or an ack into the log,
// as a name the session's token may write as.
import { h, api, head, notice, session, threadLink, pageStart, pageReady } from "./lib.js";

const ANSWER_STATUSES = ["claimed", "ready", "applied", "blocked", "failed", "superseded"];
const ACK_STATUSES = ["applied", "claimed", "ready", "blocked", "failed", "superseded"];

function threadID() {
  const b = new Uint8Array(6);
  crypto.getRandomValues(b);
  return "thr_" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function field(id, labelText, input, wide) {
  input.id = id;
  return h("div", { class: wide ? "wide" : "" }, h("label", { for: id }, labelText), input);
}

function select(values, current) {
  return h("select", {}, values.map((v) => h("option", { value: v, selected: v === current }, v)));
}

export function composePage(main, q) {
  pageStart("compose");
  const info = session.info;
  let mode = q.get("mode") || "ask";
  const names = info.write_as.filter((n) => !/[*?[\\]/.test(n));
  const fromDefault = q.get("from") || names[0] || "";
  const list = h("datalist", { id: "write-as" }, names.map((n) => h("option", { value: n })));
  const tabs = h("div", { class: "tabs" });
  const body = h("div", {});
  const result = h("div", { id: "compose-result" });
  main.append(head("Compose", info.write_as_any ? "Write into the log as any agent name." : "Write into the log as " + (info.write_as.length ? info.write_as.join(", ") : "nobody: this token only reads") + "."),
    h("div", { class: "panel" }, tabs, body, result), list);
  if (info.node.read_only) result.append(notice("warn", "This node is read-only: it refuses every write."));

  for (const [m, text] of [["ask", "Ask"], ["answer", "Answer"], ["ack", "Ack"]]) {
    tabs.append(h("button", { type: "button", dataset: { mode: m }, class: m === mode ? "on" : "", onclick: () => { mode = m; draw(); } }, text));
  }

  function draw() {
    for (const b of tabs.children) b.classList.toggle("on", b.dataset.mode === mode);
    const from = h("input", { list: "write-as", value: fromDefault, autocomplete: "off" });
    const to = h("input", { value: q.get("to") || "", autocomplete: "off" });
    const stream = h("input", { value: q.get("stream") || "" });
    const room = h("input", { value: q.get("room") || "general" });
    const topic = h("input", { value: "" });
    const text = h("textarea", {});
    let form;
    if (mode === "ack") {
      const event = h("input", { value: q.get("event") || "", class: "mono" });
      const status = select(ACK_STATUSES, "applied");
      form = h("div", { class: "form-grid" },
        field("c-event", "Event id", event), field("c-from", "From (you)", from), field("c-status", "Status", status),
        field("c-body", "Message", text, true));
      send(form, () => ({ tool: "event_ack", arguments: { event_id: event.value.trim(), from_agent: from.value.trim(), status: status.value, body: text.value } }));
    } else {
      const isAsk = mode === "ask";
      const type = h("input", { value: isAsk ? "task.request" : "task.reply" });
      const corr = h("input", { value: q.get("thread") || (isAsk ? threadID() : ""), class: "mono" });
      const status = isAsk ? null : select(ANSWER_STATUSES, "applied");
      form = h("div", { class: "form-grid" },
        field("c-from", "From (you)", from), field("c-to", "To agent", to), field("c-type", "Type", type),
        field("c-stream", "Stream", stream), field("c-room", "Room", room), field("c-topic", "Topic (optional)", topic),
        field("c-thread", "Thread (correlation id)", corr), status ? field("c-status", "Status", status) : h("div", {}),
        h("div", {}), field("c-body", isAsk ? "Ask" : "Answer", text, true));
      send(form, () => {
        const args = { type: type.value.trim(), stream: stream.value.trim(), room: room.value.trim(), from_agent: from.value.trim(),
          to_agent: to.value.trim(), correlation_id: corr.value.trim(), status: isAsk ? "open" : status.value, body: text.value };
        if (topic.value.trim()) args.topic = topic.value.trim();
        for (const k of ["to_agent", "correlation_id"]) if (!args[k]) delete args[k];
        return { tool: "event_append", arguments: args };
      });
    }
    body.replaceChildren(form);
  }

  function send(form, build) {
    const button = h("button", { type: "button", id: "compose-send" }, mode === "ack" ? "Send ack" : mode === "ask" ? "Send ask" : "Send answer");
    button.addEventListener("click", async () => {
      button.disabled = true;
      result.replaceChildren();
      try {
        const out = await api("compose", { method: "POST", body: build() });
        const e = out.event;
        const thread = e.correlation_id || e.id;
        result.append(notice("ok", "Written: ", h("code", { id: "written-id" }, e.id), " · ", threadLink(thread, "open the thread")));
        for (const w of out.warnings || []) result.append(notice("warn", w));
      } catch (err) {
        if (err.status !== 401) result.append(notice("bad", "Refused: " + err.message + ". Nothing was written."));
      }
      button.disabled = false;
    });
    form.append(h("div", { class: "wide actions" }, button));
  }

  draw();
  pageReady("compose");
}

// The console's shell: sign-in, the top bar, and the hash router that
// draws one page at a time into <main>.
import { h, api, session, whenSignedOut, notice } from "./lib.js";
import { meshPage } from "./mesh.js";
import { agentsPage, agentPage } from "./agents.js";
import { streamsPage, streamPage, threadPage } from "./threads.js";
import { tailPage } from "./tail.js";
import { composePage } from "./compose.js";

const main = document.getElementById("main");
const bar = document.getElementById("bar");
let stopPage = null; // ends the current page's polls and streams

const routes = {
  mesh: () => meshPage(main),
  agents: (arg, q) => agentsPage(main, q),
  agent: (arg) => agentPage(main, arg),
  streams: () => streamsPage(main),
  stream: (arg, q) => streamPage(main, arg, q),
  thread: (arg) => threadPage(main, arg),
  tail: (arg, q) => tailPage(main, q),
  compose: (arg, q) => composePage(main, q),
};

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [p, qs] = raw.split("?");
  const [name, ...rest] = p.split("/");
  return { name, arg: rest.length ? decodeURIComponent(rest.join("/")) : "", q: new URLSearchParams(qs || "") };
}

function route() {
  if (!session.info) return;
  if (stopPage) { stopPage(); stopPage = null; }
  let { name, arg, q } = parseHash();
  if (!routes[name] || (name === "mesh" && !session.info.admin)) {
    location.replace("#/" + (session.info.admin ? "mesh" : "agents"));
    return;
  }
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("on", a.dataset.nav === name || (name === "agent" && a.dataset.nav === "agents") || ((name === "stream" || name === "thread") && a.dataset.nav === "streams"));
  main.replaceChildren();
  const stop = routes[name](arg, q);
  stopPage = typeof stop === "function" ? stop : null;
}

function showBar(info) {
  bar.hidden = false;
  for (const a of document.querySelectorAll("#nav a[data-admin]")) a.hidden = !info.admin;
  document.getElementById("who-name").textContent = info.name + (info.admin ? " · admin" : "");
  const n = info.node;
  document.getElementById("node-name").textContent = "node " + n.name + (n.read_only ? " · read-only" : "");
  document.getElementById("node-name").title = n.replica_id + " · lsnode " + n.version;
}

function signIn(info, reason) {
  session.info = null;
  if (stopPage) { stopPage(); stopPage = null; }
  bar.hidden = true;
  document.body.dataset.page = "signin";
  document.body.dataset.ready = "1";
  const err = h("div", { id: "signin-error" });
  if (reason) err.append(notice("warn", reason));
  // The field has no name, so the form can never send the token in a URL.
  const token = h("input", { id: "token", type: "password", autocomplete: "off", spellcheck: "false", placeholder: info.needs_token ? "bearer token" : "no token needed on this node" });
  const form = h("form", { id: "signin-form", onsubmit: async (ev) => {
    ev.preventDefault();
    err.replaceChildren();
    try {
      const got = await api("signin", { method: "POST", body: { token: token.value } });
      token.value = "";
      start(got);
    } catch (e) {
      err.replaceChildren(notice("bad", e.status === 401 ? "That token was not accepted." : e.message));
    }
  } },
  h("label", { for: "token" }, "Token"), token,
  h("button", { type: "submit", id: "signin" }, "Sign in"));
  main.replaceChildren(h("div", { class: "signin" }, h("div", { class: "panel" },
    h("h1", {}, h("img", { src: "icon.svg", alt: "", width: 26, height: 26 }), "lsnode console"),
    h("p", {}, "Sign in with the node's shared token, an admin token, or an agent token. The token stays on the server: this browser keeps a session cookie only."),
    err, form,
    h("div", { class: "foot" }, "Node " + info.node.name + " · ", h("code", {}, info.node.replica_id), " · lsnode " + info.node.version))));
  token.focus();
}

function start(info) {
  session.info = info;
  showBar(info);
  if (!location.hash || location.hash === "#/") location.replace("#/" + (info.admin ? "mesh" : "agents"));
  route();
}

whenSignedOut((reason) => {
  if (!session.info) return;
  api("session").then((info) => signIn(info, reason)).catch(() => signIn({ needs_token: true, node: { name: "", replica_id: "", version: "" } }, reason));
});

document.getElementById("signout").addEventListener("click", async () => {
  try { await api("signout", { method: "POST", body: {} }); } catch (e) { /* signed out either way */ }
  const info = await api("session");
  signIn(info, "Signed out.");
});

window.addEventListener("hashchange", route);

api("session").then((info) => (info.signed_in ? start(info) : signIn(info))).catch((e) => {
  main.replaceChildren(notice("bad", "The console could not reach this node: " + e.message));
});

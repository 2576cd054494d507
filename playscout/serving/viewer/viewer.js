// playscout trajectory viewer. Plain DOM, no build step. Every string from the API is set
// with textContent (never innerHTML), so a question or observation cannot inject markup.
"use strict";

const TOOL_COLOURS = {
  search_documents: "#3b6fd8", document_qa: "#16a394", search_videos: "#e07b1a",
  video_qa: "#c2357a", extract_scene_text: "#7a52c7", transcribe_speech: "#4d8f2a",
  detect_audio_events: "#a88a12", calculator: "#5b6478", memory: "#8a5a3c",
};
const FALLBACK = ["#2f8f9d", "#b5483c", "#6d6ad6", "#8c8c2a"];

function colour(name) {
  if (TOOL_COLOURS[name]) return TOOL_COLOURS[name];
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return FALLBACK[h % FALLBACK.length];
}

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function headers() {
  const key = sessionStorage.getItem("playscout-key");
  return key ? { Authorization: "Bearer " + key } : {};
}

function askForKey() {
  const box = document.getElementById("key-box");
  box.replaceChildren();
  const input = el("input", { type: "password", placeholder: "API key", id: "key" });
  const button = el("button", {}, "use key");
  button.addEventListener("click", () => { sessionStorage.setItem("playscout-key", input.value); location.reload(); });
  box.append(input, button);
}

async function api(path) {
  const r = await fetch(path, { headers: headers() });
  if (r.status === 401) { askForKey(); throw new Error("this server needs an API key"); }
  const body = await r.json();
  if (!r.ok) throw new Error((body.error && body.error.message) || ("HTTP " + r.status));
  return body;
}

function setStatus(text) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.hidden = !text;
}

async function overview() {
  const runs = await api("/v1/trajectories");
  const body = document.querySelector("#runs tbody");
  for (const run of runs) {
    const tr = el("tr");
    const created = run.created ? new Date(run.created * 1000).toLocaleString() : "-";
    tr.append(el("td", {}, created));
    const q = el("td", { class: "q" });
    const link = el("a", { href: "/viewer/" + encodeURIComponent(run.id) }, run.question || run.id);
    q.append(link);
    tr.append(q);
    const st = el("td"); st.append(el("span", { class: "pill " + (run.status || "") }, run.status || "-"));
    tr.append(st, el("td", {}, run.turns));
    const tools = Object.entries(run.tool_calls || {}).map(([k, v]) => k + "×" + v).join(", ");
    tr.append(el("td", {}, tools || "-"), el("td", { class: "a" }, run.answer || run.error || "-"));
    body.append(tr);
  }
  document.getElementById("runs").hidden = runs.length === 0;
  setStatus(runs.length ? "" : "no trajectories yet");
}

function pairCalls(events) {
  // One block per tool call, joined with the observation that answers it (same turn, same name).
  const blocks = [];
  const open = [];
  for (const e of events) {
    if (e.type === "tool_call") { const b = { call: e, obs: null }; blocks.push(b); open.push(b); }
    else if (e.type === "observation") {
      const i = open.findIndex((b) => b.call.turn === e.turn && b.call.name === e.name);
      if (i >= 0) { open[i].obs = e; open.splice(i, 1); }
    }
  }
  return blocks;
}

function showDetails(block, button) {
  document.querySelectorAll(".block.selected").forEach((b) => b.classList.remove("selected"));
  button.classList.add("selected");
  const { call, obs } = block;
  document.getElementById("details").hidden = false;
  document.getElementById("details-title").textContent = "Turn " + call.turn + " · " + call.name;
  const meta = obs ? "latency " + obs.latency_s.toFixed(3) + " s · " + obs.tokens + " tokens" + (obs.error ? " · error: " + obs.error : "") : "no observation recorded";
  document.getElementById("details-meta").textContent = meta;
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments, null, 2);
  document.getElementById("details-args").textContent = args;
  document.getElementById("details-obs").textContent = obs ? obs.text : "";
}

async function trajectory() {
  const id = decodeURIComponent(location.pathname.split("/").pop());
  const t = await api("/v1/trajectories/" + encodeURIComponent(id));
  const s = t.summary;
  document.getElementById("title").textContent = "trajectory " + t.id;
  document.getElementById("question-box").hidden = false;
  document.getElementById("question").textContent = s.question || "-";
  document.getElementById("answer").textContent = s.answer ?? "-";
  const status = document.getElementById("run-status");
  status.textContent = s.status || "-"; status.classList.add(s.status || "none");
  const a = t.annotations || {};
  if (a.gold_answer !== undefined || a.verdict !== undefined) {
    document.getElementById("gold-row").hidden = false;
    document.getElementById("gold").textContent = a.gold_answer ?? "-";
    const verdict = a.verdict ?? (a.correct === true ? "correct" : a.correct === false ? "incorrect" : "");
    const v = document.getElementById("verdict"); v.textContent = verdict; if (verdict) v.classList.add(String(verdict));
  }
  const tools = Object.entries(s.tool_calls || {}).map(([k, v]) => k + " " + v).join(", ");
  document.getElementById("stats").textContent =
    s.turns + " turns · tools: " + (tools || "none") + " · tokens " + s.prompt_tokens + "/" + s.completion_tokens +
    " · model " + s.model_latency_s + " s · tools " + s.tool_latency_s + " s · wall " + s.wall_s + " s" + (s.policy ? " · policy " + s.policy : "");

  const blocks = pairCalls(t.events);
  const legend = document.getElementById("legend");
  for (const name of [...new Set(blocks.map((b) => b.call.name))]) {
    const item = el("span", {}, name); item.style.setProperty("--c", colour(name)); legend.append(item);
  }
  const timeline = document.getElementById("timeline");
  const models = new Map(t.events.filter((e) => e.type === "model_call").map((e) => [e.turn, e]));
  blocks.forEach((block, i) => {
    const { call, obs } = block;
    const button = el("button", { class: "block" + (obs && obs.error ? " error" : ""), "data-tool": call.name, "data-index": String(i), role: "listitem", title: call.name });
    button.style.background = colour(call.name);
    button.append(el("div", { class: "turn" }, "turn " + call.turn), el("div", { class: "name" }, call.name));
    const m = models.get(call.turn);
    const bits = [];
    if (obs) bits.push(obs.latency_s.toFixed(2) + " s");
    if (m) bits.push(m.prompt_tokens + "+" + m.completion_tokens + " tok");
    else if (obs && obs.tokens) bits.push(obs.tokens + " tok");
    button.append(el("div", { class: "meta" }, bits.join(" · ")));
    button.addEventListener("click", () => showDetails(block, button));
    timeline.append(button);
  });
  setStatus(blocks.length ? "" : "no tool calls in this trajectory");
}

document.addEventListener("DOMContentLoaded", () => {
  const page = document.body.dataset.page;
  (page === "trajectory" ? trajectory() : overview()).catch((e) => setStatus("error: " + e.message));
});

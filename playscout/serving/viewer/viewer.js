// playscout run browser. Plain DOM, no build step, no library. Every string from the data is
// set with textContent or setAttribute (never innerHTML), so a question, an answer or an
// observation cannot inject markup.
//
// Pages (hash routes, so the same files work from the server and opened from disk):
//   #/                      runs (eval runs; ad-hoc asks as one more row)
//   #/runs/RUN?filters      a run's questions          #/asks?filters   ad-hoc asks
//   #/runs/RUN/q/QID        a question's trajectory    #/asks/ID        an ask's trajectory
//   #/compare/A/B?change=   right/wrong changes between two runs
//   #/compare/A/B/q/QID     one question in both runs, the first divergent turn marked
// Data comes from the HTTP API, or from `window.PLAYSCOUT_STATIC` in an export
// (`playscout eval export RUN --html DIR`).
"use strict";

const PAGE = 100;
const TOOL_COLOURS = {
  search_documents: "#3b6fd8", document_qa: "#16a394", search_videos: "#e07b1a",
  video_qa: "#c2357a", video_qa_oracle: "#d9739f", extract_scene_text: "#7a52c7", transcribe_speech: "#4d8f2a",
  detect_audio_events: "#a88a12", calculator: "#5b6478", memory: "#8a5a3c",
};
const FALLBACK = ["#2f8f9d", "#b5483c", "#6d6ad6", "#8c8c2a"];

function colour(name) {
  if (TOOL_COLOURS[name]) return TOOL_COLOURS[name];
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return FALLBACK[h % FALLBACK.length];
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function pill(text, kind) {
  return el("span", { class: "pill " + (kind || text || "none") }, text || "-");
}

function fmtDate(ts) { return ts ? new Date(ts * 1000).toLocaleString() : "-"; }
function fmtS(x) { return x === undefined || x === null ? "-" : Number(x).toFixed(2) + " s"; }
function tools(counts) {
  return Object.entries(counts || {}).map(([k, v]) => k + "×" + v).join(", ") || "-";
}
function hashOf(...parts) { return "#/" + parts.map(encodeURIComponent).join("/"); }

// ------------------------------------------------------------------ data sources

const STATIC = window.PLAYSCOUT_STATIC || null;

function headers() {
  const key = sessionStorage.getItem("playscout-key");
  return key ? { Authorization: "Bearer " + key } : {};
}

function askForKey() {
  const box = document.getElementById("key-box");
  box.replaceChildren();
  const input = el("input", { type: "password", placeholder: "API key", id: "key" });
  const button = el("button", {}, "use key");
  button.addEventListener("click", () => {
    sessionStorage.setItem("playscout-key", input.value);
    // <video> and <img> cannot send headers: clip media accepts the key as this cookie.
    document.cookie = "playscout_media_key=" + encodeURIComponent(input.value) + "; path=/v1/clips/; SameSite=Strict";
    location.reload();
  });
  box.append(input, button);
}

async function api(path, params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") query.set(k, v);
  const url = path + (query.toString() ? "?" + query : "");
  const r = await fetch(url, { headers: headers() });
  if (r.status === 401) { askForKey(); throw new Error("this server needs an API key"); }
  const body = await r.json();
  if (!r.ok) throw new Error((body.error && body.error.message) || ("HTTP " + r.status));
  return body;
}

async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { ...headers(), "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (r.status === 401) { askForKey(); throw new Error("this server needs an API key"); }
  const data = await r.json();
  if (!r.ok) throw new Error((data.error && data.error.message) || ("HTTP " + r.status));
  return data;
}

function keep(row, f, fields) {
  if (f.status && row.status !== f.status) return false;
  if (f.verdict && (row.verdict || "unjudged") !== f.verdict) return false;
  if (f.sport && row.sport !== f.sport) return false;
  if (f.tool && !(row.tool_calls || {})[f.tool]) return false;
  if (f.q) {
    const needle = f.q.toLowerCase();
    return fields.some((k) => String(row[k] || "").toLowerCase().includes(needle));
  }
  return true;
}

const apiSource = {
  runs: (p) => api("/v1/runs", p),
  run: (id) => api("/v1/runs/" + encodeURIComponent(id)),
  asks: (p) => api("/v1/trajectories", p),
  questions: (id, p) => api("/v1/runs/" + encodeURIComponent(id) + "/questions", p),
  question: (id, qid) => api("/v1/runs/" + encodeURIComponent(id) + "/questions/" + encodeURIComponent(qid)),
  ask: (tid) => api("/v1/trajectories/" + encodeURIComponent(tid)),
  compare: (a, b, p) => api("/v1/runs/" + encodeURIComponent(a) + "/compare/" + encodeURIComponent(b), p),
  pair: (a, b, qid) => api("/v1/runs/" + encodeURIComponent(a) + "/compare/" + encodeURIComponent(b) + "/questions/" + encodeURIComponent(qid)),
  clip: (sport, id) => "/v1/clips/" + encodeURIComponent(id) + "?sport=" + encodeURIComponent(sport || ""),
  thumb: (sport, id) => "/v1/clips/" + encodeURIComponent(id) + "/thumbnail?sport=" + encodeURIComponent(sport || ""),
  frame: (sport, id, t, frames) => "/v1/clips/" + encodeURIComponent(id) + "/frames?" + new URLSearchParams({
    t: String(t), sport: sport || "", long_side: String(frames.long_side), quality: String(frames.quality) }),
  canCompare: true,
  hasAsks: true,
};

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = el("script", { src });
    s.addEventListener("load", resolve);
    s.addEventListener("error", () => reject(new Error("cannot load " + src)));
    document.head.append(s);
  });
}

function staticSource(data) {
  const details = {};
  window.PLAYSCOUT_STATIC_LOADED = (qid, detail) => { details[qid] = detail; };
  const page = (rows, p) => {
    const offset = Number(p.offset || 0), limit = Number(p.limit || PAGE);
    return { items: rows.slice(offset, offset + limit), total: rows.length, offset, limit };
  };
  const media = data.media || {};
  return {
    runs: async (p) => page([data.run].filter((r) => keep({ status: r.state }, { status: p.status }, [])), p),
    run: async () => data.run,
    questions: async (_id, p) => {
      const rows = data.questions.filter((r) => keep(r, p, ["qid", "question", "answer", "gold"]));
      return { ...page(rows, p), facets: data.facets };
    },
    question: async (_id, qid) => {
      if (!details[qid]) {
        if (!data.files[qid]) throw new Error("no question " + qid + " in this export");
        await loadScript(data.files[qid]);
      }
      return details[qid];
    },
    clip: (_s, id) => (media.clips || {})[id] || null,
    thumb: (_s, id) => (media.thumbs || {})[id] || null,
    frame: (_s, id, t) => (media.frames || {})[id + "@" + Number(t).toFixed(3)] || null,
    canCompare: false,
    hasAsks: false,
  };
}

const source = STATIC ? staticSource(STATIC) : apiSource;

// ------------------------------------------------------------------ routing and chrome

function route() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, query] = raw.split("?");
  const parts = path ? path.split("/").map(decodeURIComponent) : [];
  return { parts, params: Object.fromEntries(new URLSearchParams(query || "")) };
}

function go(parts, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "" && v !== 0) q.set(k, v);
  location.hash = hashOf(...parts).slice(1) + (q.toString() ? "?" + q : "");
}

function crumbs(...items) {
  const nav = document.getElementById("crumbs");
  nav.replaceChildren();
  for (const [label, href] of items) {
    nav.append(el("span", { class: "sep" }, "›"), href ? el("a", { href }, label) : el("span", {}, label));
  }
}

function setStatus(text, error) {
  const s = document.getElementById("status");
  if (!s) return;
  s.textContent = text;
  s.hidden = !text;
  s.classList.toggle("error", !!error);
}

function staticBadge() {
  if (!STATIC || document.getElementById("static-badge")) return;
  document.getElementById("key-box").replaceWith(el("span", { id: "static-badge", class: "pill" }, "static export · no server"));
}

function rendered() {
  // Read by the browser tests and benchmarks/viewer.py (time to first render).
  document.body.dataset.rendered = String(Date.now());
  if (!performance.getEntriesByName("playscout-rendered").length) performance.mark("playscout-rendered");
}

function pager(page, onPage) {
  const box = el("div", { class: "pager" });
  const first = page.total ? page.offset + 1 : 0;
  const last = Math.min(page.offset + page.items.length, page.total);
  const prev = el("button", { class: "prev" }, "‹ previous");
  const next = el("button", { class: "next" }, "next ›");
  prev.disabled = page.offset <= 0;
  next.disabled = page.offset + page.limit >= page.total;
  prev.addEventListener("click", () => onPage(Math.max(0, page.offset - page.limit)));
  next.addEventListener("click", () => onPage(page.offset + page.limit));
  const pages = Math.max(1, Math.ceil(page.total / page.limit));
  const at = Math.floor(page.offset / page.limit) + 1;
  const jump = el("input", { type: "number", min: "1", max: String(pages), value: String(at), class: "page", "aria-label": "page" });
  jump.addEventListener("change", () => onPage((Math.min(pages, Math.max(1, Number(jump.value))) - 1) * page.limit));
  box.append(prev, el("span", { class: "range" }, first + "–" + last + " of " + page.total), next,
    el("span", { class: "muted" }, " page "), jump, el("span", { class: "muted" }, " of " + pages));
  return box;
}

function select(name, values, current, onChange, label) {
  const s = el("select", { name, "aria-label": label || name });
  s.append(el("option", { value: "" }, (label || name) + ": all"));
  for (const v of values || []) {
    const o = el("option", { value: v }, (label || name) + ": " + v);  // says which filter it is once chosen
    if (v === current) o.selected = true;
    s.append(o);
  }
  s.addEventListener("change", () => onChange(s.value));
  return s;
}

function table(head, rows, cls) {
  const t = el("table", { class: cls || "" });
  t.append(el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))));
  const body = el("tbody");
  for (const r of rows) body.append(r);
  t.append(body);
  return t;
}

// ------------------------------------------------------------------ runs

async function runsPage(app, params) {
  crumbs(["runs"]);
  const offset = Number(params.offset || 0);
  const query = { status: params.status, task: params.task, mode: params.mode, offset, limit: 50 };
  const page = await source.runs(query);
  app.append(el("h1", {}, "Runs"));
  const bar = el("div", { class: "filters" });
  const refilter = (k) => (v) => go([], { ...params, [k]: v, offset: 0 });
  bar.append(
    select("status", ["queued", "running", "done", "failed", "cancelled", "interrupted"], params.status, refilter("status"), "state"),
    select("mode", ["default", "oracle"], params.mode, refilter("mode")),
  );
  const task = el("input", { type: "search", name: "task", placeholder: "task (t9, t3, …)", value: params.task || "" });
  task.addEventListener("change", () => refilter("task")(task.value.trim()));
  bar.append(task);
  app.append(bar);
  if (source.canCompare) {
    const cmp = el("button", { id: "compare-btn", disabled: "" }, "compare the two selected runs");
    cmp.addEventListener("click", () => {
      // The list is newest first: A is the older run (the baseline), B the newer one.
      const ids = [...app.querySelectorAll("input.pick:checked")].map((i) => i.value).reverse();
      if (ids.length === 2) go(["compare", ids[0], ids[1]]);
    });
    bar.append(cmp);
  }
  const rows = page.items.map((r) => {
    const tr = el("tr", { "data-run": r.id });
    const pick = source.canCompare ? el("input", { type: "checkbox", class: "pick", value: r.id, "aria-label": "select " + r.id }) : "";
    if (pick) pick.addEventListener("change", () => {
      const n = app.querySelectorAll("input.pick:checked").length;
      document.getElementById("compare-btn").disabled = n !== 2;
    });
    const acc = r.accuracy === null || r.accuracy === undefined ? "-" :
      r.accuracy.toFixed(1) + "% (" + r.right + "/" + r.judged + (r.judge ? ", " + r.judge : "") + ")";
    const progress = r.done + (r.total !== null && r.total !== undefined ? "/" + r.total : "");
    const state = el("td", {}, pill(r.state));
    if (r.message && r.state !== "done") state.append(el("div", { class: "reason" }, r.message));
    tr.append(el("td", {}, pick), el("td", {}, fmtDate(r.created)),
      el("td", { class: "id" }, el("a", { href: hashOf("runs", r.id) }, r.id)),
      el("td", {}, r.task || "-"), el("td", {}, r.mode || "-"), el("td", {}, r.preset || "-"),
      el("td", {}, r.model || "-"), state, el("td", { class: "num" }, progress), accCell(acc, r));
    return tr;
  });
  if (source.hasAsks && offset === 0) {
    const asks = await source.asks({ limit: 1 });
    const tr = el("tr", { class: "asks-row" });
    tr.append(el("td"), el("td", {}, asks.items[0] ? fmtDate(asks.items[0].created) : "-"),
      el("td", { class: "id" }, el("a", { href: "#/asks" }, "ad-hoc asks")), el("td", {}, "ask"),
      el("td", {}, "-"), el("td", {}, "-"), el("td", {}, "-"), el("td", {}, "-"),
      el("td", { class: "num" }, String(asks.total)), el("td", {}, "-"));
    rows.push(tr);
  }
  app.append(table(["", "date", "run", "task", "mode", "preset", "model", "state", "questions", "accuracy"], rows, "runs"));
  app.append(pager(page, (o) => go([], { ...params, offset: o })));
  setStatus(page.total || source.hasAsks ? "" : "no runs yet");
}

// ------------------------------------------------------------------ question lists

function filtersBar(params, facets, onChange, withVerdict) {
  const bar = el("div", { class: "filters" });
  const q = el("input", { type: "search", name: "q", placeholder: "search question, answer, gold, id", value: params.q || "", size: "36" });
  q.addEventListener("change", () => onChange("q", q.value.trim()));
  bar.append(q, select("status", facets.status, params.status, (v) => onChange("status", v)));
  if (withVerdict) bar.append(select("verdict", ["right", "wrong", "unjudged"], params.verdict, (v) => onChange("verdict", v)));
  bar.append(select("sport", facets.sport, params.sport, (v) => onChange("sport", v)),
    select("tool", facets.tool, params.tool, (v) => onChange("tool", v), "tool used"));
  return bar;
}

function runHeader(run) {
  const box = el("section", { class: "card run-card" });
  box.append(el("h1", {}, run.id));
  const acc = run.accuracy === null || run.accuracy === undefined ? "not judged" :
    run.accuracy.toFixed(1) + "% right (" + run.right + "/" + run.judged + ", judge " + run.judge + ")";
  box.append(el("div", {}, pill(run.state), " ", "task " + (run.task || "-") + " · mode " + (run.mode || "-") +
    " · policy " + (run.policy || "-") + (run.preset ? " · preset " + run.preset : "") + " · model " + (run.model || "-") +
    " · " + run.done + (run.total !== null && run.total !== undefined ? "/" + run.total : "") + " questions · " + acc));
  const h = run.human || {};
  if (h.right || h.wrong || h.unclear) {
    box.append(el("div", { id: "human-counts" }, "human verdicts: " + h.right + " right · " + h.wrong + " wrong · " +
      h.unclear + " unclear · " + h.unmarked + " unmarked (apart from the judge's)"));
  }
  if (run.message && run.state !== "done") box.append(el("div", { class: "reason" }, run.message));
  const stamp = comparability(run);
  if (stamp) box.append(el("div", { class: "reason not-comparable" }, stamp));
  return box;
}

// "not comparable: <reasons>" beside a run's number (eval/running/stamp.py); "" when comparable or unknown.
function comparability(r) {
  return r.comparable === false && r.not_comparable && r.not_comparable.length
    ? "not comparable: " + r.not_comparable.join("; ") : "";
}

// The accuracy stays in view: the reasons a run is not comparable fold under one line that
// opens to a list which wraps (seven reasons on one line pushed the number off the screen).
function accCell(acc, r) {
  const td = el("td", { class: "num acc" }, el("span", { class: "acc-value" }, acc));
  const reasons = comparability(r) ? r.not_comparable : [];
  if (reasons.length) {
    const box = el("details", { class: "reason not-comparable", title: comparability(r) });
    box.append(el("summary", {}, "not comparable (" + reasons.length + (reasons.length === 1 ? " reason)" : " reasons)")));
    const list = el("ul");
    for (const reason of reasons) list.append(el("li", {}, reason));
    box.append(list);
    td.append(box);
  }
  return td;
}

async function questionsPage(app, runId, params) {
  crumbs(["runs", "#/"], [runId]);
  const offset = Number(params.offset || 0);
  const [run, page] = await Promise.all([
    source.run(runId),
    source.questions(runId, { status: params.status, verdict: params.verdict, sport: params.sport, tool: params.tool, q: params.q, offset, limit: PAGE }),
  ]);
  app.append(runHeader(run));
  app.append(filtersBar(params, page.facets || {}, (k, v) => go(["runs", runId], { ...params, [k]: v, offset: 0 }), true));
  const rows = page.items.map((r) => {
    const tr = el("tr", { "data-qid": r.qid, class: r.verdict || "" });
    const err = r.error ? el("td", { class: "reason" }, r.error) : el("td", {}, "-");
    tr.append(el("td", { class: "id" }, el("a", { href: hashOf("runs", runId, "q", r.qid) }, r.qid)),
      el("td", { class: "q" }, r.question), el("td", { class: "a" }, r.gold ?? "-"), el("td", { class: "a" }, r.answer ?? "-"),
      el("td", {}, pill(r.verdict || "unjudged")),
      el("td", { class: "human", title: r.human ? humanText(r.human) : "" }, r.human ? pill(r.human.verdict) : "-"),
      el("td", {}, pill(r.status)), el("td", { class: "num" }, r.turns),
      el("td", {}, tools(r.tool_calls)), err);
    return tr;
  });
  app.append(table(["id", "question", "gold", "answer", "verdict", "human", "status", "turns", "tools", "error"], rows, "questions"));
  app.append(pager(page, (o) => go(["runs", runId], { ...params, offset: o })));
  setStatus(page.total ? "" : "no questions match");
}

async function asksPage(app, params) {
  crumbs(["runs", "#/"], ["ad-hoc asks"]);
  const offset = Number(params.offset || 0);
  const page = await source.asks({ status: params.status, tool: params.tool, q: params.q, offset, limit: PAGE });
  app.append(el("h1", {}, "Ad-hoc asks"));
  const facets = page.facets || {};
  const bar = filtersBar(params, facets, (k, v) => go(["asks"], { ...params, [k]: v, offset: 0 }), false);
  bar.querySelector("select[name=sport]").remove();
  app.append(bar);
  const rows = page.items.map((t) => {
    const tr = el("tr", { "data-qid": t.id });
    tr.append(el("td", {}, fmtDate(t.created)),
      el("td", { class: "q" }, el("a", { href: hashOf("asks", t.id) }, t.question || t.id)),
      el("td", {}, pill(t.status)), el("td", { class: "num" }, t.turns), el("td", {}, tools(t.tool_calls)),
      el("td", { class: "a" }, t.answer ?? "-"), t.error ? el("td", { class: "reason" }, t.error) : el("td", {}, "-"));
    return tr;
  });
  app.append(table(["created", "question", "status", "turns", "tools", "answer", "error"], rows, "questions"));
  app.append(pager(page, (o) => go(["asks"], { ...params, offset: o })));
  setStatus(page.total ? "" : "no asks match");
}

// ------------------------------------------------------------------ a trajectory

// What every part of one trajectory's view needs: its sport, the clip player, which clips
// have a video file (the server's `annotations.media`; a corpus without video has none, so
// no thumbnail, frame or clip is requested that could only be a 404) and the question's gold
// documents and clips (`annotations.gold_doc_ids` / `gold_clip_ids`).
function viewContext(t, play) {
  const a = t.annotations || {};
  return {
    sport: sportOf(t.events),
    play,
    media: a.media || null,
    goldDocs: a.gold_doc_ids || [],
    goldClips: a.gold_clip_ids || [],
  };
}

function hasMedia(ctx, id) {
  if (ctx.media) return ctx.media[id] === true;
  return STATIC ? !!source.clip(ctx.sport, id) : true;  // a server from before the media map
}

function player(sport, media) {
  const box = el("aside", { class: "card player", id: "player" });
  const title = el("div", { class: "player-title muted" }, "click a clip to play it");
  const video = el("video", { controls: "", preload: "metadata", id: "video" });
  video.hidden = true;
  box.append(el("h2", {}, "Clip player"), title, video);
  box.play = (clipId) => {
    const url = media(clipId) ? source.clip(sport, clipId) : null;
    if (!url) {
      title.textContent = "clip " + clipId + (STATIC ? " is not in this export" : " has no video file in this corpus");
      video.hidden = true;
      return;
    }
    title.textContent = "clip " + clipId;
    video.hidden = false;
    video.setAttribute("src", url);
    video.dataset.clip = clipId;
    video.play().catch(() => {});
  };
  return box;
}

function goldBadge(ctx, id, kind) {
  const list = kind === "doc" ? ctx.goldDocs : ctx.goldClips;
  return list.includes(id) ? el("span", { class: "gold-badge" }, "gold " + kind) : "";
}

function clipTile(ctx, hit) {
  const id = hit.id || hit;
  const tile = el("button", { class: "clip", "data-clip": id, title: "play " + id });
  if (ctx.goldClips.includes(id)) tile.classList.add("gold");
  const src = hasMedia(ctx, id) ? source.thumb(ctx.sport, id) : null;
  const label = hit.video ? id + " · " + hit.video[0].toFixed(0) + "–" + hit.video[1].toFixed(0) + " s" : id;
  if (src) {
    tile.append(el("img", { src, alt: "thumbnail of " + id, loading: "lazy", width: "160", height: "90" }));
  } else {  // a clip without a video file is its id, not a black picture
    tile.classList.add("nomedia");
    tile.title = id + (STATIC ? ": not in this export" : ": no video file in this corpus");
  }
  tile.append(el("div", { class: "label" }, label, " ", goldBadge(ctx, id, "clip")));
  tile.addEventListener("click", () => ctx.play(id));
  return tile;
}

function score(h) {
  return h.score !== null && h.score !== undefined ? "score " + Number(h.score).toFixed(4) : "";
}

// A clip hit as text (rank, id, where it is, score, caption and what was heard), with its
// thumbnail only when the clip has a video file.
function clipHit(ctx, h) {
  const li = el("li", { class: "clip-hit", "data-clip": h.id, "data-rank": h.rank ?? "" });
  if (ctx.goldClips.includes(h.id)) li.classList.add("gold");
  const src = hasMedia(ctx, h.id) ? source.thumb(ctx.sport, h.id) : null;
  if (src) {
    const thumb = el("button", { class: "thumb", title: "play " + h.id }, el("img", { src, alt: "thumbnail of " + h.id, loading: "lazy", width: "96", height: "54" }));
    thumb.addEventListener("click", () => ctx.play(h.id));
    li.append(thumb);
  }
  const where = h.video ? h.video[0].toFixed(1) + "–" + h.video[1].toFixed(1) + " s" : "";
  const body = el("div", { class: "hit-body" });
  body.append(el("div", {}, el("span", { class: "rank" }, "#" + (h.rank ?? "?")), " ", el("span", { class: "id" }, h.id), " ",
    el("span", { class: "muted" }, [where, score(h)].filter(Boolean).join(" · ")), " ", goldBadge(ctx, h.id, "clip")));
  if (h.caption) body.append(el("div", { class: "caption" }, el("span", { class: "what" }, "caption "), h.caption));
  if (h.heard) body.append(el("div", { class: "heard" }, el("span", { class: "what" }, "heard "), h.heard));
  if (h.highlight) body.append(el("div", { class: "highlight" }, el("span", { class: "what" }, "matched "), h.highlight));
  li.append(body);
  return li;
}

// Where each gold document or clip of the question is in this search's results (its rank),
// or that the search did not return it.
function goldLine(ctx, kind, hits) {
  const gold = kind === "doc" ? ctx.goldDocs : ctx.goldClips;
  if (!gold.length) return "";
  const rank = new Map(hits.map((h) => [h.id, h.rank]));
  const parts = gold.map((id) => id + (rank.has(id) ? " at rank " + rank.get(id) : " not returned"));
  const found = gold.some((id) => rank.has(id));
  return el("div", { class: "gold-line " + (found ? "found" : "missed"), "data-kind": kind },
    el("span", { class: "what" }, "gold " + kind + (gold.length > 1 ? "s" : "") + ": "), parts.join("; "));
}

function framesStrip(ctx, answer) {
  const f = answer.frames;
  const box = el("div", { class: "frames", "data-clip": answer.id });
  box.append(el("div", { class: "muted" }, f.times.length + " frames sent to the VLM from " + answer.id +
    " (" + f.long_side + " px, JPEG q" + f.quality + ")"));
  if (!hasMedia(ctx, answer.id)) {  // their times, not a row of black pictures
    box.append(el("div", { class: "muted frame-times" }, (STATIC ? "not exported" : "no video file") + " to show them; at " +
      f.times.map((t) => Number(t).toFixed(2) + " s").join(", ")));
    return box;
  }
  const grid = el("div", { class: "frame-grid" });
  for (const t of f.times) {
    const src = source.frame(ctx.sport, answer.id, t, f);
    const fig = el("figure", { class: "frame" });
    fig.append(src ? el("img", { src, alt: answer.id + " at " + t + " s", loading: "lazy" }) : el("div", { class: "muted" }, "not exported"),
      el("figcaption", {}, Number(t).toFixed(2) + " s"));
    grid.append(fig);
  }
  box.append(grid);
  return box;
}

function observationBody(obs, ctx) {
  const box = el("div", { class: "obs" });
  const data = obs.data || {};
  const hits = data.hits || [];
  const docs = hits.filter((h) => (data.doc_ids || []).includes(h.id));
  const clips = hits.filter((h) => (data.clip_ids || []).includes(h.id));
  if (obs.name === "search_documents" && !obs.error) box.append(goldLine(ctx, "doc", docs));
  if (obs.name === "search_videos" && !obs.error) box.append(goldLine(ctx, "clip", clips));
  if (docs.length) {
    const list = el("ol", { class: "doc-hits" });
    for (const h of docs) {
      const li = el("li", { "data-doc": h.id, "data-rank": h.rank ?? "" }, el("span", { class: "rank" }, "#" + (h.rank ?? "?")), " ",
        el("span", { class: "id" }, h.id), " ", el("span", { class: "muted" }, score(h)), " ", goldBadge(ctx, h.id, "doc"),
        h.highlight ? el("div", { class: "highlight" }, h.highlight) : "");
      if (ctx.goldDocs.includes(h.id)) li.classList.add("gold");
      list.append(li);
    }
    box.append(list);
  }
  if (clips.length) {
    const list = el("ol", { class: "clip-hits" });
    for (const h of clips) list.append(clipHit(ctx, h));
    box.append(list);
  }
  for (const a of data.answers || []) {
    const item = el("div", { class: "qa-answer", "data-id": a.id });
    if (ctx.goldClips.includes(a.id) || ctx.goldDocs.includes(a.id)) item.classList.add("gold");
    item.append(el("div", {}, el("span", { class: "id" }, a.id), " ", goldBadge(ctx, a.id, ctx.goldDocs.includes(a.id) ? "doc" : "clip"),
      ": ", el("b", {}, a.answer ?? "-"),
      a.confidence !== null && a.confidence !== undefined ? el("span", { class: "muted" }, " (confidence " + a.confidence + ")") : ""));
    if (a.frames) {
      const row = el("div", { class: "qa-frames" });
      row.append(clipTile(ctx, { id: a.id }), framesStrip(ctx, a));
      item.append(row);
    }
    box.append(item);
  }
  const text = el("details", { class: "obs-text" });
  const size = obs.tokens ? " (" + obs.tokens + " tokens" + (obs.cut_from_tokens ? ", cut from " + obs.cut_from_tokens : "") + ")" : "";
  text.append(el("summary", {}, "what the model was shown" + size),
    el("pre", {}, obs.text));
  box.append(text);
  return box;
}

function eventNode(e, ctx) {
  const turn = e.turn === undefined || e.turn === null ? "" : "turn " + e.turn;
  const node = el("article", { class: "event " + e.type, "data-turn": e.turn ?? "", "data-type": e.type });
  if (e.type === "run_start") {
    node.append(el("h3", {}, "Run start"), el("div", { class: "muted" },
      [e.sport, e.mode, e.policy, e.model ? "model " + e.model : "", e.tool_protocol ? "protocol " + e.tool_protocol : ""].filter(Boolean).join(" · ")));
    const d = el("details");
    d.append(el("summary", {}, "tools and settings"), el("pre", {}, JSON.stringify({ tools: e.tools, settings: e.settings, versions: e.versions }, null, 2)));
    node.append(d);
  } else if (e.type === "model_call") {
    node.append(el("h3", {}, turn + " · model" + (e.forced_final ? " (forced final: " + e.forced_final + ")" : "")),
      el("div", { class: "meta" }, e.prompt_tokens + " prompt + " + e.completion_tokens + " completion tokens · " + fmtS(e.latency_s) +
        (e.finish_reason ? " · finish " + e.finish_reason : "")));
    if (e.reasoning) {
      const d = el("details", { class: "reasoning" });
      d.append(el("summary", {}, "reasoning"), el("pre", {}, e.reasoning));
      node.append(d);
    }
    node.append(el("pre", { class: "content" }, e.content || "(no text)"));
  } else if (e.type === "tool_call") {
    node.style.setProperty("--c", colour(e.name));
    node.append(el("h3", {}, turn + " · call ", el("span", { class: "tool" }, e.name)),
      el("pre", { class: "args" }, typeof e.arguments === "string" ? e.arguments : JSON.stringify(e.arguments, null, 2)));
    if (e.ignored_calls) node.append(el("div", { class: "muted" }, e.ignored_calls + " more call(s) in the reply were ignored"));
  } else if (e.type === "observation") {
    node.style.setProperty("--c", colour(e.name));
    if (e.error) node.classList.add("failed");
    node.append(el("h3", {}, turn + " · observation of ", el("span", { class: "tool" }, e.name)),
      el("div", { class: "meta" }, fmtS(e.latency_s) + (e.tokens ? " · " + e.tokens + " tokens" : "")));
    if (e.error) node.append(el("div", { class: "reason" }, "error: " + e.error));
    node.append(observationBody(e, ctx));
  } else if (e.type === "error") {
    node.append(el("h3", {}, (turn ? turn + " · " : "") + "error (" + e.kind + (e.fatal ? ", fatal" : "") + ")"),
      el("div", { class: "reason" }, e.message));
  } else if (e.type === "context") {
    node.append(el("h3", {}, turn + " · context"), el("div", { class: "muted" },
      "dropped " + e.dropped_turns + " old turn(s); " + e.context_tokens + " of " + e.budget_tokens + " tokens"));
  } else if (e.type === "final_answer") {
    node.append(el("h3", {}, "Final answer"), el("div", {}, el("b", {}, e.answer ?? "(none)"), " ", pill(e.status)),
      el("div", { class: "meta" }, e.turns + " turns · " + fmtS(e.wall_s)));
    const ev = e.evidence || {};
    if ((ev.doc_ids || []).length) {
      const docs = el("div", { class: "evidence-docs" }, el("span", { class: "label" }, "documents "));
      ev.doc_ids.forEach((id, i) => docs.append(i ? ", " : "", el("span", { class: ctx.goldDocs.includes(id) ? "id gold" : "id" }, id), " ", goldBadge(ctx, id, "doc")));
      node.append(docs);
    }
    if ((ev.clip_ids || []).length) {
      const grid = el("div", { class: "clip-grid" });
      for (const id of ev.clip_ids.slice(0, 12)) grid.append(clipTile(ctx, { id }));
      node.append(el("div", { class: "label" }, "clips"), grid);
    }
    if ((ev.qa || []).length) {
      const ul = el("ul", { class: "qa" });
      for (const line of ev.qa) ul.append(el("li", {}, line));
      node.append(el("div", { class: "label" }, "QA answers"), ul);
    }
  } else {
    node.append(el("h3", {}, e.type), el("pre", {}, JSON.stringify(e, null, 2)));
  }
  return node;
}

function humanText(h) {
  return h.verdict + " · " + h.by + " · " + fmtDate(h.at) + (h.note ? " · " + h.note : "");
}

// A person's verdict on a run's answer: shown, and (over the API) set with a note. It is
// stored apart from the judge's verdict (POST .../questions/QID/human), never over it.
function humanRow(runId, qid, human) {
  const row = el("div", { id: "human-row" }, el("span", { class: "label" }, "Human "));
  const shown = el("span", { id: "human" }, human ? pill(human.verdict) : pill("unmarked", "none"));
  const who = el("span", { class: "muted", id: "human-by" }, human ? " " + human.by + " · " + fmtDate(human.at) + (human.note ? ": " + human.note : "") : "");
  row.append(shown, who);
  if (STATIC || !runId) return row;
  const form = el("form", { id: "human-form", class: "human-form" });
  const verdict = select("human-verdict", ["right", "wrong", "unclear"], human ? human.verdict : "", () => {}, "verdict");
  verdict.querySelector("option").textContent = "verdict…";
  const note = el("input", { type: "text", name: "note", maxlength: "2000", placeholder: "note (why)", size: "40", value: human ? human.note : "" });
  const by = el("input", { type: "text", name: "by", maxlength: "80", placeholder: "your name", size: "12", value: localStorage.getItem("playscout-name") || "" });
  const save = el("button", { type: "submit" }, "mark");
  const said = el("span", { class: "muted", id: "human-said" });
  form.append(verdict, note, by, save, said);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!verdict.value || !by.value.trim()) { said.textContent = "choose a verdict and give your name"; return; }
    localStorage.setItem("playscout-name", by.value.trim());
    try {
      const rec = await post("/v1/runs/" + encodeURIComponent(runId) + "/questions/" + encodeURIComponent(qid) + "/human",
        { verdict: verdict.value, note: note.value, by: by.value.trim() });
      shown.replaceChildren(pill(rec.verdict));
      who.textContent = " " + rec.by + " · " + fmtDate(rec.at) + (rec.note ? ": " + rec.note : "");
      said.textContent = "saved";
    } catch (e) {
      said.textContent = "error: " + e.message;
    }
    rendered();
  });
  row.append(form);
  return row;
}

function summaryCard(t, runId) {
  const s = t.summary, a = t.annotations || {};
  const box = el("section", { class: "card summary" });
  box.append(el("div", {}, el("span", { class: "label" }, "Question "), el("span", { id: "question" }, s.question || "-")));
  box.append(el("div", {}, el("span", { class: "label" }, "Answer "), el("span", { id: "answer" }, s.answer ?? "-"), " ", pill(s.status, s.status)));
  if (a.gold_answer !== undefined || a.verdict !== undefined) {
    const verdict = a.verdict ?? (a.correct === true ? "right" : a.correct === false ? "wrong" : "unjudged");
    const row = el("div", { id: "gold-row" }, el("span", { class: "label" }, "Gold "), el("span", { id: "gold" }, a.gold_answer ?? "-"), " ", pill(verdict));
    row.querySelector(".pill").id = "verdict";
    if (a.judge) row.append(el("span", { class: "muted" }, " judge " + a.judge + (a.judge_reason ? ": " + a.judge_reason : "")));
    box.append(row);
  }
  if ((a.gold_doc_ids || []).length || (a.gold_clip_ids || []).length) {
    box.append(el("div", { id: "gold-evidence" }, el("span", { class: "label" }, "Gold evidence "),
      el("span", { class: "id" }, [...(a.gold_doc_ids || []), ...(a.gold_clip_ids || [])].join(", ")),
      el("span", { class: "muted" }, " (marked gold wherever a search returned them)")));
  }
  if (runId !== undefined) box.append(humanRow(runId, t.id, a.human || null));
  const error = s.error || a.result_error;
  if (error) box.append(el("div", { class: "reason", id: "run-error" }, "error: " + error));
  box.append(el("div", { class: "muted", id: "stats" }, s.turns + " turns · tools: " + tools(s.tool_calls) + " · tokens " + s.prompt_tokens + "/" + s.completion_tokens +
    " · model " + fmtS(s.model_latency_s) + " · tools " + fmtS(s.tool_latency_s) + " · wall " + fmtS(s.wall_s) + (s.policy ? " · policy " + s.policy : "") + (s.model ? " · " + s.model : "")));
  return box;
}

function timelineStrip(events) {
  const strip = el("div", { id: "timeline", role: "list" });
  for (const e of events.filter((x) => x.type === "tool_call")) {
    const b = el("button", { class: "block", "data-tool": e.name, "data-turn": String(e.turn), role: "listitem", title: "turn " + e.turn + " · " + e.name });
    b.style.background = colour(e.name);
    b.append(el("div", { class: "turn" }, "turn " + e.turn), el("div", { class: "name" }, e.name));
    b.addEventListener("click", () => {
      const target = document.querySelector('.events article.tool_call[data-turn="' + e.turn + '"]');
      if (target) target.scrollIntoView({ behavior: "smooth", block: "start" });
    });
    strip.append(b);
  }
  return strip;
}

function sportOf(events) {
  const start = events.find((e) => e.type === "run_start");
  return start ? start.sport : "";
}

function eventList(events, ctx, divergent, label) {
  const list = el("div", { class: "events" });
  for (const e of events) {
    const node = eventNode(e, ctx);
    if (divergent !== null && divergent !== undefined && e.turn === divergent) {
      node.classList.add("divergent");
      node.querySelector("h3").prepend(el("span", { class: "diverges" }, label || "first divergence"), " ");
    }
    list.append(node);
  }
  return list;
}

function trajectoryPlayer(t) {
  const ctx = viewContext(t, null);
  const box = player(ctx.sport, (id) => hasMedia(ctx, id));
  ctx.play = (id) => box.play(id);
  return [ctx, box];
}

function trajectoryView(app, t, runId) {
  const [ctx, play] = trajectoryPlayer(t);
  app.append(summaryCard(t, runId), timelineStrip(t.events));
  const d = (t.annotations || {}).divergence;  // an export made against a baseline run
  if (d) {
    app.append(el("div", { class: "divergence " + (d.turn === null ? "same" : "differs"), id: "divergence" },
      d.turn === null ? "acted the same as " + d.baseline + " at every turn" : "first divergent turn from " + d.baseline + ": " + d.turn));
  }
  const layout = el("div", { class: "trajectory" });
  layout.append(eventList(t.events, ctx, d ? d.turn : null, d ? "first divergence from " + d.baseline : null), play);
  app.append(layout);
}

async function questionPage(app, runId, qid) {
  crumbs(["runs", "#/"], [runId, hashOf("runs", runId)], [qid]);
  trajectoryView(app, await source.question(runId, qid), runId);
  setStatus("");
}

async function askPage(app, tid) {
  crumbs(["runs", "#/"], ["ad-hoc asks", "#/asks"], [tid]);
  trajectoryView(app, await source.ask(tid));
  setStatus("");
}

// ------------------------------------------------------------------ compare

async function comparePage(app, a, b, params) {
  crumbs(["runs", "#/"], ["compare " + a + " / " + b]);
  const offset = Number(params.offset || 0);
  const page = await source.compare(a, b, { change: params.change, offset, limit: PAGE });
  app.append(el("h1", {}, "Compare"), el("div", { class: "muted" }, "A: " + a + " · B: " + b));
  const counts = el("div", { class: "counts" });
  for (const [k, v] of Object.entries(page.counts)) counts.append(pill(k.replace("_", " ") + " " + v, k), " ");
  counts.append(el("span", { class: "muted" }, "only in A: " + page.only_a + " · only in B: " + page.only_b));
  app.append(counts);
  const bar = el("div", { class: "filters" });
  bar.append(select("change", Object.keys(page.counts), params.change, (v) => go(["compare", a, b], { change: v })));
  app.append(bar);
  const rows = page.items.map((r) => el("tr", { "data-qid": r.qid, class: r.change },
    el("td", { class: "id" }, el("a", { href: hashOf("compare", a, b, "q", r.qid) }, r.qid)), el("td", { class: "q" }, r.question),
    el("td", { class: "a" }, r.gold ?? "-"), el("td", { class: "a" }, r.answer_a ?? "-"), el("td", {}, pill(r.a || "unjudged")),
    el("td", { class: "a" }, r.answer_b ?? "-"), el("td", {}, pill(r.b || "unjudged")), el("td", {}, pill(r.change.replace("_", " "), r.change))));
  app.append(table(["id", "question", "gold", "answer A", "A", "answer B", "B", "change"], rows, "compare"));
  app.append(pager(page, (o) => go(["compare", a, b], { ...params, offset: o })));
  setStatus(page.total ? "" : "no questions in common");
}

async function pairPage(app, a, b, qid) {
  crumbs(["runs", "#/"], ["compare", hashOf("compare", a, b)], [qid]);
  const pair = await source.pair(a, b, qid);
  app.append(el("h1", {}, qid), el("div", { class: "q" }, pair.a.summary.question || ""));
  app.append(el("div", { class: "divergence " + (pair.divergent_turn === null ? "same" : "differs"), id: "divergence" },
    pair.divergent_turn === null ? "the two runs acted the same at every turn" : "first divergent turn: " + pair.divergent_turn));
  const cols = el("div", { class: "pair" });
  for (const [label, t, id] of [["A", pair.a, a], ["B", pair.b, b]]) {
    const col = el("div", { class: "col", "data-side": label });
    const [ctx, play] = trajectoryPlayer(t);
    col.append(el("h2", {}, label + ": " + id), summaryCard(t), play, eventList(t.events, ctx, pair.divergent_turn));
    cols.append(col);
  }
  app.append(cols);
  const first = app.querySelector(".divergent");
  if (first) first.scrollIntoView({ block: "center" });
  setStatus("");
}

// ------------------------------------------------------------------ main

async function render() {
  const app = document.getElementById("app");
  app.replaceChildren(el("p", { id: "status", class: "muted" }, "loading…"));
  const { parts, params } = route();
  staticBadge();
  try {
    if (STATIC && !parts.length) await questionsPage(app, STATIC.run.id, params);
    else if (!parts.length) await runsPage(app, params);
    else if (parts[0] === "runs" && parts.length === 2) await questionsPage(app, parts[1], params);
    else if (parts[0] === "runs" && parts[2] === "q" && parts.length === 4) await questionPage(app, parts[1], parts[3]);
    else if (parts[0] === "asks" && parts.length === 1) await asksPage(app, params);
    else if (parts[0] === "asks" && parts.length === 2) await askPage(app, parts[1]);
    else if (parts[0] === "compare" && parts.length === 3) await comparePage(app, parts[1], parts[2], params);
    else if (parts[0] === "compare" && parts[3] === "q" && parts.length === 5) await pairPage(app, parts[1], parts[2], parts[4]);
    else setStatus("no such page: " + location.hash, true);
  } catch (e) {
    setStatus("error: " + e.message, true);
  }
  rendered();
}

window.addEventListener("hashchange", () => { window.scrollTo(0, 0); render(); });
document.addEventListener("DOMContentLoaded", render);

// The grist block inspector. Everything shown is built with textContent, never markup, so no
// text of the inspected page can run as code here; the page itself sits in an iframe sandboxed
// without scripts, which this script reads (same origin) to outline blocks and follow the mouse.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  html: null,        // the page's HTML once known (pasted, preloaded, or fetched by the service)
  url: null,         // the page's address
  viewKey: null,     // what the iframe shows now (html + remote), to reuse it across methods
  data: null,        // the last POST /inspect answer
  targets: [],       // block index -> elements outlined for it
  previous: null,    // {method, labels: Map(ordinal -> label)} of the method shown before
  selected: null,
};

// Roles the service reports outside the body text (its answer lists them; --with-* adds them).
function isApart(block) {
  return block.label === "boilerplate" && (state.data?.apart_roles || []).includes(block.role);
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function status(message, error) {
  $("status").textContent = message;
  $("status").className = error ? "error" : "";
}

function badge(block) {
  if (isApart(block)) {
    return el("span", {class: "badge apart"}, "apart: " + block.role);
  }
  return el("span", {class: "badge " + block.label}, block.label === "content" ? "kept" : "dropped");
}

function fmtScore(score) {
  return score === null || score === undefined ? "–" : Number(score).toFixed(3);
}

// "p=0.934; num_words=54 (+1.23), link_density=0 (-0.50); context +0.12" -> feature rows
function topFeatures(reason) {
  const rows = [];
  const pattern = /([A-Za-z_][\w.:-]*)=([^\s,;()]+) \(([+-]\d+(?:\.\d+)?)\)/g;
  let match;
  while ((match = pattern.exec(reason || "")) !== null) {
    rows.push({name: match[1], value: match[2], push: parseFloat(match[3])});
  }
  return rows;
}

async function loadMethods() {
  const response = await fetch("/methods");
  const info = await response.json();
  const select = $("method");
  for (const method of info.methods) {
    select.append(el("option", {value: method.name, title: method.summary}, method.name));
    for (const variant of method.variants) {
      select.append(el("option", {value: method.name + "/" + variant}, "  " + method.name + "/" + variant));
    }
  }
  select.value = info.default;
}

function frameDoc() {
  return $("frame").contentDocument;
}

function showView(page) {
  return new Promise((resolve) => {
    const frame = $("frame");
    frame.addEventListener("load", () => { hookFrame(); resolve(); }, {once: true});
    frame.srcdoc = page;
  });
}

function clearMarks(doc) {
  for (const node of doc.querySelectorAll("[data-grist-block]")) {
    node.removeAttribute("data-grist-block");
    node.removeAttribute("data-grist-label");
    node.removeAttribute("data-grist-changed");
    node.removeAttribute("data-grist-apart");
    node.classList.remove("grist-hover", "grist-selected");
  }
}

// Outline each block: the smallest element holding all its text nodes when it holds no other
// block's text, else each of its text nodes.
function outline(doc, data) {
  clearMarks(doc);
  const spans = new Map();
  for (const span of doc.querySelectorAll("span[data-gn]")) spans.set(Number(span.dataset.gn), span);
  const owner = new Map();
  data.blocks.forEach((range, index) => {
    if (!range) return;
    for (let n = range[0]; n <= range[1]; n++) owner.set(n, index);
  });
  const previous = state.previous;
  state.targets = data.blocks.map((range, index) => {
    if (!range) return [];
    const block = data.result.blocks[index];
    const own = [];
    for (let n = range[0]; n <= range[1]; n++) if (spans.has(n)) own.push(spans.get(n));
    if (!own.length) return [];
    let common = own[0].parentElement;
    while (common && !own.every((s) => common.contains(s))) common = common.parentElement;
    let targets = own;
    if (common && common !== doc.body && common !== doc.documentElement) {
      const inside = common.querySelectorAll("span[data-gn]");
      const alone = Array.from(inside).every((s) => {
        const who = owner.get(Number(s.dataset.gn));
        return who === undefined || who === index;
      });
      if (alone) targets = [common];
    }
    let changed = false;
    if (previous) {
      for (let n = range[0]; n <= range[1]; n++) {
        if (spans.has(n) && previous.labels.get(n) !== block.label) changed = true;
      }
    }
    for (const target of targets) {
      target.dataset.gristBlock = String(index);
      target.dataset.gristLabel = block.label;
      // title, byline, caption, comment: outside the body text, reported apart (--with-* adds them)
      if (isApart(block)) target.dataset.gristApart = block.role;
      else delete target.dataset.gristApart;
      if (changed) target.dataset.gristChanged = previous.method;
    }
    return targets;
  });
}

function labelsByNode(data) {
  const labels = new Map();
  data.blocks.forEach((range, index) => {
    if (!range) return;
    for (let n = range[0]; n <= range[1]; n++) labels.set(n, data.result.blocks[index].label);
  });
  return labels;
}

function blockAt(target) {
  const node = target && target.closest ? target.closest("[data-grist-block]") : null;
  return node ? Number(node.dataset.gristBlock) : null;
}

function hookFrame() {
  const doc = frameDoc();
  doc.addEventListener("mouseover", (event) => {
    const index = blockAt(event.target);
    setHover(index, event);
  });
  doc.addEventListener("mousemove", (event) => moveTip(event));
  doc.addEventListener("mouseleave", () => setHover(null));
  doc.addEventListener("click", (event) => {
    event.preventDefault();  // links in the inspected page go nowhere
    const index = blockAt(event.target);
    if (index !== null) select(index, false);
  }, true);
  doc.addEventListener("submit", (event) => event.preventDefault(), true);
}

let hovered = null;
function setHover(index, event) {
  if (hovered !== null) for (const t of state.targets[hovered] || []) t.classList.remove("grist-hover");
  hovered = index;
  const tip = $("tip");
  if (index === null || !state.data) { tip.hidden = true; return; }
  for (const t of state.targets[index] || []) t.classList.add("grist-hover");
  const block = state.data.result.blocks[index];
  tip.replaceChildren(
    badge(block),
    el("b", {}, "#" + index + " " + (block.role || "no role")),
    " score " + fmtScore(block.score) + " · " + block.decided_by,
    el("div", {class: "reason"}, block.reason || "no reason given"));
  tip.hidden = false;
  if (event) moveTip(event);
  if (state.selected === null) showBlock(index);
}

function moveTip(event) {
  const tip = $("tip");
  if (tip.hidden) return;
  const frame = $("frame").getBoundingClientRect();
  let x = frame.left + event.clientX + 14;
  let y = frame.top + event.clientY + 14;
  const width = tip.offsetWidth, height = tip.offsetHeight;
  if (x + width > window.innerWidth - 4) x = Math.max(4, window.innerWidth - width - 4);
  if (y + height > window.innerHeight - 4) y = Math.max(4, frame.top + event.clientY - height - 10);
  tip.style.left = x + "px";
  tip.style.top = y + "px";
}

function select(index, scroll) {
  if (state.selected !== null) for (const t of state.targets[state.selected] || []) t.classList.remove("grist-selected");
  state.selected = index;
  for (const t of state.targets[index] || []) t.classList.add("grist-selected");
  if (scroll && state.targets[index] && state.targets[index][0]) {
    state.targets[index][0].scrollIntoView({block: "center"});
  }
  showTab("block");
  showBlock(index);
}

function showBlock(index) {
  const block = state.data.result.blocks[index];
  const range = state.data.blocks[index];
  const details = el("dl", {},
    el("dt", {}, "block"), el("dd", {}, "#" + index + " (" + block.tag + ")"),
    el("dt", {}, "decision"), el("dd", {}, badge(block)),
    el("dt", {}, "role"), el("dd", {}, block.role || "–"),
    el("dt", {}, "score"), el("dd", {}, fmtScore(block.score)),
    el("dt", {}, "decided by"), el("dd", {}, block.decided_by),
    el("dt", {}, "reason"), el("dd", {class: "reason"}, block.reason || "–"),
    el("dt", {}, "path"), el("dd", {}, block.path || "–"),
    el("dt", {}, "on the page"), el("dd", {}, range ? "text nodes " + range[0] + "–" + range[1] : "not located"));
  const parts = [details];
  const features = topFeatures(block.reason);
  if (features.length) {
    parts.push(el("h4", {}, "Top features"));
    parts.push(el("table", {}, el("tr", {}, el("th", {}, "feature"), el("th", {}, "value"), el("th", {}, "push")),
      ...features.map((f) => el("tr", {}, el("td", {}, f.name), el("td", {class: "num"}, f.value),
        el("td", {class: "num " + (f.push >= 0 ? "push-up" : "push-down")}, (f.push >= 0 ? "+" : "") + f.push.toFixed(2))))));
  }
  parts.push(el("h4", {}, "Text"), el("blockquote", {}, block.text));
  $("tab-block").replaceChildren(...parts);
}

function showTab(name) {
  for (const button of document.querySelectorAll("#tabs button")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  for (const tab of ["block", "text", "page", "list"]) $("tab-" + tab).hidden = tab !== name;
}

function showSummary(data) {
  const result = data.result;
  const kept = result.blocks.filter((b) => b.label === "content").length;
  const parts = [el("div", {}, el("b", {}, result.method), ": " + kept + " kept, " +
    (result.blocks.length - kept) + " dropped of " + result.blocks.length + " blocks")];
  const located = data.located;
  if (located.by_text || located.unmapped) {
    parts.push(el("div", {class: "hint"}, "located by text node " + located.by_nodes + ", by text match " +
      located.by_text + ", not found " + located.unmapped));
  }
  if (state.previous) {
    const changed = new Set();
    for (const node of frameDoc().querySelectorAll("[data-grist-changed]")) changed.add(node.dataset.gristBlock);
    parts.push(el("div", {}, "compared with " + state.previous.method + ": " + changed.size + " blocks changed"));
  }
  for (const warning of result.warnings) parts.push(el("div", {class: "warning"}, "⚠ " + warning));
  if (result.empty_reason) parts.push(el("div", {class: "warning"}, result.empty_reason));
  $("summary").replaceChildren(...parts);
  $("text").textContent = result.text;
  // The page's metadata, then every other page-level field the result carries.
  const meta = el("dl", {});
  const shown = (value) => value === null || value === undefined || value === "" ? "–"
    : typeof value === "string" ? value : JSON.stringify(value);
  for (const [key, value] of Object.entries(result.metadata || {})) {  // title, author, date, ...
    meta.append(el("dt", {}, key), el("dd", {}, shown(value)));
  }
  for (const [key, value] of Object.entries(result)) {
    if (["blocks", "text", "warnings", "meta", "metadata"].includes(key)) continue;
    meta.append(el("dt", {}, key), el("dd", {}, shown(value)));
  }
  for (const [key, value] of Object.entries(result.meta || {})) {
    meta.append(el("dt", {}, "meta." + key), el("dd", {}, shown(value)));
  }
  const warnings = result.warnings.length ? el("ul", {}, ...result.warnings.map((w) => el("li", {}, w))) : el("p", {class: "hint"}, "no warnings");
  $("tab-page").replaceChildren(meta, el("h4", {}, "Warnings"), warnings);
  $("tab-list").replaceChildren(el("table", {},
    el("tr", {}, el("th", {}, "#"), el("th", {}, ""), el("th", {}, "role"), el("th", {}, "score"), el("th", {}, "text")),
    ...result.blocks.map((b, i) => el("tr", {class: "pick", onclick: () => select(i, true)},
      el("td", {class: "num"}, i), el("td", {}, badge(b)), el("td", {}, b.role || "–"),
      el("td", {class: "num"}, fmtScore(b.score)), el("td", {}, b.text.length > 90 ? b.text.slice(0, 90) + "…" : b.text)))));
}

async function inspect() {
  const method = $("method").value;
  const pasted = $("html").hidden ? "" : $("html").value;
  const urlField = $("url").value.trim();
  if (pasted) { state.html = pasted; state.url = urlField || null; }
  else if (urlField && urlField !== state.url) { state.html = null; state.url = urlField; }
  if (!state.html && !state.url) { status("give a URL or paste HTML", true); return; }
  const remote = $("remote").checked;
  const viewKey = state.html !== null ? remote + ":" + state.html.length + ":" + state.html.slice(0, 200) : null;
  const needView = viewKey === null || viewKey !== state.viewKey;
  const request = {method: method, view: needView, remote: remote};
  if (state.html !== null) request.html = state.html;
  if (state.url) request.url = state.url;
  status("extracting with " + method + "…");
  $("run").disabled = true;
  try {
    const response = await fetch("/inspect", {method: "POST", headers: {"content-type": "application/json"},
      body: JSON.stringify(request)});
    const data = await response.json();
    if (!response.ok) { status(response.status + ": " + data.error, true); return; }
    if (state.data && !needView) {
      state.previous = {method: state.data.result.method, labels: labelsByNode(state.data)};
    } else {
      state.previous = null;
    }
    if (data.source !== undefined) state.html = data.source;
    if (data.page !== null) {
      await showView(data.page);
      state.viewKey = remote + ":" + state.html.length + ":" + state.html.slice(0, 200);
    }
    state.data = data;
    state.selected = null;
    $("empty").hidden = true;
    outline(frameDoc(), data);
    showSummary(data);
    status("done: " + method);
    document.body.dataset.inspected = method;
  } catch (error) {
    status("the request failed: " + error, true);
  } finally {
    $("run").disabled = false;
  }
}

async function start() {
  await loadMethods();
  $("form").addEventListener("submit", (event) => { event.preventDefault(); inspect(); });
  $("method").addEventListener("change", () => { if (state.data) inspect(); });
  $("paste-toggle").addEventListener("click", () => {
    const area = $("html");
    area.hidden = !area.hidden;
    $("paste-toggle").setAttribute("aria-expanded", String(!area.hidden));
    if (!area.hidden) area.focus();
  });
  for (const button of document.querySelectorAll("#tabs button")) {
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  const params = new URLSearchParams(location.search);
  if (params.get("method")) $("method").value = params.get("method");
  if (params.get("preload")) {
    const response = await fetch("/inspect/preload/" + encodeURIComponent(params.get("preload")));
    const page = await response.json();
    if (!response.ok) { status(page.error, true); return; }
    state.html = page.html;
    state.url = page.url;
    $("url").value = page.url || "";
    inspect();
  } else if (params.get("url")) {
    $("url").value = params.get("url");
    inspect();
  }
  document.body.dataset.ready = "1";
}

start();

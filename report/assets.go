package report

// The page is one file with no external assets: its stylesheet and script
// live here, and the CSP in the page forbids loading anything else.

const csp = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

const pageCSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
header { padding: 14px 22px; background: #24292f; color: #f0f3f6; }
header h1 { margin: 0 0 4px; font-size: 20px; }
header p { margin: 2px 0; color: #c9d1d9; }
.ok { color: #1a7f37; font-weight: 600; } header .ok { color: #56d364; }
.bad { color: #cf222e; font-weight: 600; } header .bad { color: #ff7b72; }
.banner { margin: 12px 22px; padding: 10px 14px; background: #ffebe9; border: 1px solid #cf222e; border-radius: 6px; white-space: pre-wrap; }
nav { padding: 8px 22px; background: #fff; border-bottom: 1px solid #d0d7de; }
nav a { margin-right: 14px; }
.help { color: #57606a; font-size: 13px; }
section.graph { margin: 14px 22px 30px; padding: 12px 16px; background: #fff; border: 1px solid #d0d7de; border-radius: 8px; }
section.graph h2 { margin: 0 0 6px; font-size: 18px; }
section.graph h3 { margin: 18px 0 6px; font-size: 15px; border-bottom: 1px solid #d8dee4; padding-bottom: 3px; }
section.graph h4 { margin: 10px 0 4px; font-size: 14px; color: #57606a; }
.pipeline { display: flex; flex-wrap: wrap; gap: 4px; margin: 8px 0; }
.pipeline a { padding: 2px 8px; border: 1px solid #d0d7de; border-radius: 12px; text-decoration: none; color: #0969da; background: #f6f8fa; font-size: 13px; }
.pipeline a small { color: #57606a; }
.cols { display: flex; align-items: flex-start; gap: 6px; overflow-x: auto; padding-bottom: 6px; }
.col { flex: 0 0 auto; min-width: 28em; max-width: 46em; border: 1px solid #d0d7de; border-radius: 6px; background: #fff; }
.col-head { cursor: pointer; padding: 4px 8px; background: #eaeef2; font-weight: 600; border-bottom: 1px solid #d0d7de; user-select: none; white-space: nowrap; }
.col-head small { font-weight: normal; color: #57606a; }
.col-body { padding: 4px 8px; max-height: 78vh; overflow: auto; }
.col.collapsed { min-width: 0; }
.col.collapsed .col-body { display: none; }
.col.collapsed .col-head { writing-mode: vertical-rl; border-bottom: 0; padding: 8px 3px; min-height: 8em; }
.explain { color: #57606a; font-size: 12.5px; margin: 4px 0 6px; max-width: 60em; }
pre.chroma { margin: 0; padding: 6px; font: 12.5px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; white-space: pre; }
details.svg summary { cursor: pointer; color: #0969da; font-size: 13px; }
details.svg div { overflow: auto; max-height: 70vh; border: 1px solid #d8dee4; margin: 4px 0; }
.gn { cursor: pointer; border-radius: 3px; }
.gn:hover { text-decoration: underline; }
.pv0 { background: #fbb4ae !important; } .pv1 { background: #b3cde3 !important; }
.pv2 { background: #ccebc5 !important; } .pv3 { background: #decbe4 !important; }
.pv4 { background: #fed9a6 !important; } .pv5 { background: #ffff99 !important; }
.pv6 { background: #e5d8bd !important; } .pv7 { background: #fddaec !important; }
.pvself { outline: 2px solid #24292f; }
g.pv0 > path, g.pv0 > polygon { fill: #fbb4ae; } g.pv1 > path, g.pv1 > polygon { fill: #b3cde3; }
g.pv2 > path, g.pv2 > polygon { fill: #ccebc5; } g.pv3 > path, g.pv3 > polygon { fill: #decbe4; }
g.pv4 > path, g.pv4 > polygon { fill: #fed9a6; } g.pv5 > path, g.pv5 > polygon { fill: #ffff99; }
g.pv6 > path, g.pv6 > polygon { fill: #e5d8bd; } g.pv7 > path, g.pv7 > polygon { fill: #fddaec; }
g.pv > path, g.pv > polygon { stroke-width: 3; } g.gn { cursor: pointer; }
table.t { border-collapse: collapse; font-size: 12.5px; margin: 4px 0 8px; }
table.t th, table.t td { border: 1px solid #d8dee4; padding: 2px 7px; text-align: left; vertical-align: top; }
table.t th { background: #f6f8fa; }
table.t td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.t td.code, span.code { font-family: ui-monospace, Menlo, Consolas, monospace; }
tr.fuse td { background: #f0fff4; }
.scroll { max-height: 40vh; overflow: auto; display: inline-block; }
`

// pageJS colours provenance on click (GOSSAFUNC's ssa.html style: up to
// eight selections at once, each with its ancestors and descendants in
// every stage; a second click clears it), folds columns on a click on
// their title, opens a folded column when a pipeline link points at it,
// and marks the body data-ready="1" so a test can tell the script ran.
const pageJS = `
(function () {
  "use strict";
  var data = { labels: [], from: {} };
  try { data = JSON.parse(document.getElementById("gc-prov").textContent); } catch (e) {}
  var edges = data.from || {}, labels = data.labels || [];
  var up = {}, down = {};
  Object.keys(edges).forEach(function (k) {
    up[k] = edges[k].map(String);
    up[k].forEach(function (f) { (down[f] = down[f] || []).push(k); });
  });
  var els = {};
  document.querySelectorAll("[data-node]").forEach(function (e) {
    var id = e.getAttribute("data-node");
    (els[id] = els[id] || []).push(e);
    if (labels[id]) e.title = labels[id];
  });
  function walk(start, next, seen) {
    var stack = [start];
    while (stack.length) {
      var x = stack.pop();
      if (seen[x] && x !== start) continue;
      seen[x] = true;
      (next[x] || []).forEach(function (y) { if (!seen[y]) stack.push(y); });
    }
    return seen;
  }
  var NC = 8, sel = [];
  function paint() {
    document.querySelectorAll(".pv").forEach(function (e) {
      e.classList.remove("pv", "pvself");
      for (var i = 0; i < NC; i++) e.classList.remove("pv" + i);
    });
    sel.forEach(function (s) {
      var rel = walk(s.id, down, walk(s.id, up, {}));
      Object.keys(rel).forEach(function (id) {
        (els[id] || []).forEach(function (e) {
          e.classList.add("pv", "pv" + s.c);
          if (id === s.id) e.classList.add("pvself");
        });
      });
    });
  }
  function toggle(id) {
    for (var i = 0; i < sel.length; i++) {
      if (sel[i].id === id) { sel.splice(i, 1); paint(); return; }
    }
    var used = {};
    sel.forEach(function (s) { used[s.c] = true; });
    var c = 0;
    while (c < NC && used[c]) c++;
    if (c === NC) { c = sel[0].c; sel.shift(); }
    sel.push({ id: id, c: c });
    paint();
  }
  function openTarget(hash) {
    var t = hash && document.getElementById(decodeURIComponent(hash.slice(1)));
    var col = t && t.closest(".col");
    if (col) col.classList.remove("collapsed");
  }
  document.addEventListener("click", function (ev) {
    var n = ev.target.closest("[data-node]");
    if (n) { toggle(n.getAttribute("data-node")); return; }
    var h = ev.target.closest(".col-head");
    if (h) { h.parentNode.classList.toggle("collapsed"); return; }
    var a = ev.target.closest("a[href^='#']");
    if (a) openTarget(a.getAttribute("href"));
  });
  openTarget(location.hash);
  // index.html#sel=ID opens the page with node ID selected: a link to a
  // selection, and how the browser test checks the colouring.
  var m = /^#sel=(\d+)$/.exec(location.hash);
  if (m) toggle(m[1]);
  document.body.setAttribute("data-ready", "1");
})();
`

"""The style sheet and the script of ``report.html``, inline in the page (no external resource).

The page's Content-Security-Policy allows exactly these two by their hashes. The script only
hides and shows rows of the matrix (filters) and opens the section a link points to; the page
embeds no data for it.
"""

STYLE = """
:root{--fg:#1d2125;--muted:#5f6b76;--line:#d9dee3;--bg:#fff;--soft:#f5f7f9;--hl:#fff1a8;--hlb:#e0b400}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
  background:var(--bg)}
header,main{padding:0 24px}
header{background:var(--soft);border-bottom:1px solid var(--line);padding-top:12px;padding-bottom:12px}
h1{font-size:20px;margin:4px 0 10px}h2{font-size:17px;margin:22px 0 8px}h4{margin:14px 0 6px;font-size:14px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
a{color:#0b5cad}
.verdict{display:inline-block;padding:2px 10px;border-radius:12px;color:#fff;font-size:14px;
  vertical-align:2px;margin-right:6px}
.verdict.passed{background:#1e7b34}.verdict.failed{background:#b3261e}.verdict.interrupted,.verdict.incomplete{background:#b06d00}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0 0 10px}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;overflow-wrap:anywhere}
.counts{display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.chip{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;white-space:nowrap;
  border:1px solid rgba(0,0,0,.12)}
.note{border-left:4px solid #b06d00;background:#fff7e6;padding:6px 10px;margin:10px 0}
.note ul{margin:4px 0;padding-left:20px}
.o-pass{background:#d8f0dd;color:#17522a}.o-fail{background:#f7cfcf;color:#8a1111}
.o-xfail{background:#fbefc5;color:#6b5000}.o-xpass{background:#e5d6f5;color:#4b1782}
.o-unsupported{background:#d7e5f6;color:#0d3c73}.o-error{background:#f3c8ea;color:#74105d}
.o-timeout{background:#ffdcae;color:#7a4200}.o-crash{background:#3d0d0d;color:#fff}
.o-skip{background:#ececec;color:#555}.o-na{background:#f3f3f3;color:#777}.o-none{background:#fff;color:#aaa}
.filters{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;margin:6px 0 10px;padding:8px 10px;
  border:1px solid var(--line);border-radius:6px;background:var(--soft)}
.filters input[type=search]{width:22em;padding:4px 6px}
.filters label{white-space:nowrap;cursor:pointer}
.filters button{padding:2px 8px}
#shown{color:var(--muted)}
table{border-collapse:collapse}
table.matrix{width:100%}
.matrix th,.matrix td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
.matrix thead th{position:sticky;top:0;background:#e9edf1;z-index:1}
.matrix tr.topic-head th{background:var(--soft);padding-top:8px;font-size:14px}
.matrix td.id{white-space:nowrap}
.matrix td.title{color:var(--muted);width:100%}
.matrix td.cell{text-align:center;white-space:nowrap;min-width:7em;font-size:12.5px}
.matrix td.cell a{color:inherit;text-decoration:underline dotted}
.matrix td.id a{text-decoration:none}.matrix td.id a:hover{text-decoration:underline}
.mini{font-weight:normal;margin-left:8px}.mini .chip{font-size:11px;padding:0 6px}
details.case{border:1px solid var(--line);border-radius:6px;margin:8px 0;background:#fff}
details.case>summary{cursor:pointer;padding:6px 10px;background:var(--soft);border-radius:6px;
  list-style-position:inside}
details.case[open]>summary{border-bottom:1px solid var(--line);border-radius:6px 6px 0 0}
details.case .body{padding:4px 14px 12px}
.muted{color:var(--muted)}
pre.src{background:#f7f8fa;border:1px solid var(--line);border-radius:4px;padding:6px 0;max-height:28em;
  overflow:auto}
pre.src .line{display:block;padding:0 8px}pre.src .line.hl{background:var(--hl);
  box-shadow:inset 3px 0 var(--hlb)}
pre.src .ln{display:inline-block;width:3em;color:#9aa4ad;user-select:none;text-align:right;margin-right:12px}
.item{border-top:1px dashed var(--line);margin-top:12px}
.item h4 .chip{margin-right:6px}.item h4 .headline{font-weight:normal}
table.steps{width:100%;table-layout:fixed;margin-top:6px}
.steps th,.steps td{border:1px solid var(--line);padding:4px 6px;vertical-align:top;text-align:left;
  overflow-wrap:anywhere}
.steps thead th{background:#e9edf1}
.steps col.c-n{width:3em}.steps col.c-step{width:24%}
.steps tr.diff>td:first-child{box-shadow:inset 4px 0 #d1242f;font-weight:bold}
.steps tr.after td{opacity:.6}
.steps .where{color:var(--muted);font-size:12px;margin-top:2px}
.steps .missing{color:var(--muted);font-style:italic}
.steps .k{display:inline-block;font-size:11px;color:var(--muted);margin-right:4px;text-transform:uppercase;
  letter-spacing:.03em}
.steps .warn,.steps .out,.steps .exc,.steps .val,.steps .lbl{padding:1px 3px;margin:1px 0;border-radius:3px}
.steps .warn{color:#7a4a00}
.steps .f{display:inline-block;margin:0 8px 0 0;padding:0 3px;border-radius:3px}
.steps .hl,.steps .f.hl{background:var(--hl);outline:1px solid var(--hlb)}
.steps pre.msg{max-height:16em;overflow:auto}
table.diffs{width:100%;table-layout:fixed;margin-top:4px}
.diffs th,.diffs td{border:1px solid var(--line);padding:3px 6px;vertical-align:top;text-align:left;
  overflow-wrap:anywhere}
.diffs mark{background:#ffd866;color:inherit;border-radius:2px;padding:0 1px}
.diffs thead th{background:#e9edf1}
.diffs col.c-where{width:24%}.diffs col.c-note{width:18%}
.toolbar{display:flex;gap:8px;align-items:center}
[hidden]{display:none!important}
""".strip()

SCRIPT = """
(function () {
  var form = document.getElementById("filters");
  if (!form) return;
  var text = document.getElementById("f-text");
  var topic = document.getElementById("f-topic");
  var boxes = Array.prototype.slice.call(form.querySelectorAll("input[data-outcome]"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.case"));
  var groups = Array.prototype.slice.call(document.querySelectorAll("tbody.topic"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("details.case"));
  var shown = document.getElementById("shown");
  function keep(el, wanted, words, chosen) {
    if (chosen && el.getAttribute("data-topic") !== chosen) return false;
    var hay = el.getAttribute("data-search");
    for (var i = 0; i < words.length; i++) if (hay.indexOf(words[i]) < 0) return false;
    return el.getAttribute("data-outcomes").split(" ").some(function (o) { return wanted[o]; });
  }
  function apply() {
    var wanted = {};
    boxes.forEach(function (b) { wanted[b.getAttribute("data-outcome")] = b.checked; });
    var words = text.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var chosen = topic.value, count = 0;
    rows.forEach(function (r) { var k = keep(r, wanted, words, chosen); r.hidden = !k; if (k) count++; });
    groups.forEach(function (g) { g.hidden = !g.querySelector("tr.case:not([hidden])"); });
    sections.forEach(function (s) { s.hidden = !keep(s, wanted, words, chosen); });
    shown.textContent = count + " of " + rows.length + " cases shown";
  }
  function only(list) {
    boxes.forEach(function (b) { b.checked = list === null || list.indexOf(b.getAttribute("data-outcome")) >= 0; });
    apply();
  }
  text.addEventListener("input", apply);
  topic.addEventListener("change", apply);
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  document.getElementById("f-all").addEventListener("click", function () { only(null); });
  document.getElementById("f-problems").addEventListener("click", function () {
    only(boxes.map(function (b) { return b.getAttribute("data-outcome"); })
      .filter(function (o) { return o !== "pass" && o !== "skip"; }));
  });
  function toggleAll(open) { sections.forEach(function (s) { s.open = open; }); }
  var expand = document.getElementById("expand"), collapse = document.getElementById("collapse");
  if (expand) expand.addEventListener("click", function () { toggleAll(true); });
  if (collapse) collapse.addEventListener("click", function () { toggleAll(false); });
  function reveal() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (err) { return; }
    var target = id && document.getElementById(id);
    if (!target) return;
    var section = target.closest("details.case");
    if (section) { section.hidden = false; section.open = true; target.scrollIntoView(); }
  }
  window.addEventListener("hashchange", reveal);
  form.hidden = false;
  apply();
  reveal();
})();
""".strip()

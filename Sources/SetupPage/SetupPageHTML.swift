/// The setup page: one self-contained HTML file (no outside resources). The preview is drawn
/// with the viewport (blue, draggable: move it, or pull its bottom-right corner) and the codes
/// the kiosk locates (green, from the event stream) on a canvas over it.
enum SetupPageHTML {
    static let page = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>scand setup</title>
<style>
body{font:14px system-ui,sans-serif;margin:0;background:#1d2126;color:#e8e8e8}
header{padding:8px 14px;background:#2b3038;font-weight:600}
main{display:flex;flex-wrap:wrap;gap:14px;padding:14px}
#view{position:relative;display:inline-block;line-height:0;background:#000;min-height:240px;max-width:100%}
#preview{max-width:min(100%,66vw,960px);display:block}
@media (max-width:960px){#preview{max-width:100%}}
#overlay{position:absolute;left:0;top:0;cursor:move}
section{background:#2b3038;border-radius:6px;padding:10px 12px;margin-bottom:12px}
h2{font-size:13px;margin:0 0 6px;color:#9ab}
button{background:#3d6fb6;color:#fff;border:0;border-radius:4px;padding:6px 12px;margin:2px;font:inherit;cursor:pointer}
button.alt{background:#555}
button:disabled{opacity:.4;cursor:not-allowed}
pre,code{background:#14171b;padding:6px;border-radius:4px;font:12px ui-monospace,monospace;white-space:pre-wrap;margin:4px 0}
table{border-collapse:collapse}td{padding:1px 8px 1px 0}
#decoding th{text-align:left;font-weight:600;color:#9ab;padding:1px 12px 1px 0}#decoding td{padding-right:12px}
#results li{font:12px ui-monospace,monospace;margin:2px 0;overflow-wrap:anywhere}
main>div{min-width:0;flex:1 1 300px}main>div:first-child{flex:0 1 auto;max-width:100%}
td{overflow-wrap:anywhere}section{min-width:0;max-width:100%;box-sizing:border-box}
#guidance li{color:#ffe14d}
label{display:block;margin-top:4px}input[type=range]{width:220px;vertical-align:middle}
#answer{color:#9c9}
#guidance{margin:0;padding-left:18px}
@media (min-width:1000px){
#status{display:grid;grid-template-columns:repeat(2,max-content);column-gap:18px}#status tbody{display:contents}
#status tr{display:flex}#status td:first-child{min-width:8.5em}
#results{max-height:8.5em;overflow-y:auto;margin:0}}
</style></head>
<body>
<header>scand setup <span id="camera"></span></header>
<main>
<div>
  <div id="view"><img id="preview" alt="camera preview"><canvas id="overlay"></canvas></div>
  <div>
    <button id="trigger">Trigger</button><button id="stop" class="alt">Stop</button>
    <button id="torch-on" class="alt">Torch on</button><button id="torch-off" class="alt">Torch off</button>
    <button id="torch-default" class="alt">Torch default</button>
    <a id="snapshot" href="/snapshot.png" target="_blank"><button class="alt">Snapshot</button></a>
    <span id="answer"></span>
  </div>
  <section><h2>Viewport (drag it; pull its bottom-right corner)</h2>
    <pre id="viewport-toml">[scan]
viewport = …</pre><button id="apply-viewport">Apply viewport</button></section>
  <section><h2>Decoding (since start)</h2><table id="decoding"></table></section>
</div>
<div>
  <section><h2>Status</h2><table id="status"></table></section>
  <section><h2>Guidance</h2><ul id="guidance"><li>—</li></ul></section>
  <section><h2>Last results</h2><ol id="results" reversed></ol></section>
  <section><h2>Camera controls</h2><div id="controls">—</div>
    <pre id="controls-toml">[camera.controls]</pre></section>
</div>
</main>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("token");
const q = token ? "?token=" + encodeURIComponent(token) : "";
const headers = token ? {"Authorization": "Bearer " + token} : {};
const $ = id => document.getElementById(id);
let viewport = null, dragged = null, located = [], locatedAt = 0, frameSize = null, locatedSize = null;
const changedControls = {};

async function api(path, body) {
  const r = await fetch(path, body === undefined ? {headers} : {method: "POST", headers, body});
  return [r.status, await r.text()];
}
async function command(line) {
  const [, text] = await api("/api/command", line);
  $("answer").textContent = text.trim();
  refresh();
}
$("trigger").onclick = () => command("TRIGGER");
$("stop").onclick = () => command("STOP");
$("torch-on").onclick = () => command("TORCH ON");
$("torch-off").onclick = () => command("TORCH OFF");
$("torch-default").onclick = () => command("TORCH DEFAULT");
$("apply-viewport").onclick = () => { if (viewport) command("SET scan.viewport=[" + viewport.map(v => v.toFixed(3)).join(", ") + "]"); };
$("snapshot").href = "/snapshot.png" + q;

function showStatus(s) {
  const rows = [["camera", s.camera + (s.cameraDetail && s.cameraDetail !== s.camera ? " (" + s.cameraDetail + ")" : "")],
    ["torch", s.torch], ["torch mode", s.torchMode], ["phase", s.phase], ["presses", s.presses], ["good reads", s.goodReads],
    ["closed without scan", s.closedWithoutScan], ["frames decoded", s.framesDecoded], ["errors", s.errors],
    ["results waiting", s.pendingResults + (s.outputsFull ? " (outputs full" + (s.fullOutputs ? ": " + s.fullOutputs.join("; ") : "") + ": presses are refused)" : "")],
    ["focus", s.focus + (s.autofocusCycles ? " (" + s.autofocusCycles + " autofocus cycles)" : "")]];
  $("status").innerHTML = "";
  for (const [k, v] of rows) { const tr = $("status").insertRow(); tr.insertCell().textContent = k; tr.insertCell().textContent = v; }
  $("camera").textContent = "· camera " + s.camera;
  // Without a torch line every torch command is refused: the buttons say so.
  for (const id of ["torch-on", "torch-off", "torch-default"]) {
    $(id).disabled = s.torch === "unavailable";
    $(id).title = s.torch === "unavailable" ? "no torch line on this board" : "";
  }
  if (!dragged && s.viewport) { viewport = s.viewport; showViewport(); }
  showGuidance(s.guidance || []);
  if (s.decoding) showDecoding(s.decoding);
}
// Reads per symbology with the bin of their median decode time (press to read), and the
// sessions that ended without a read with the bin of their median length.
function showDecoding(d) {
  const label = i => i < d.binsMs.length ? "≤" + d.binsMs[i] + " ms" : ">" + d.binsMs[d.binsMs.length - 1] + " ms";
  const median = h => {
    const count = h.bins.reduce((a, b) => a + b, 0);
    let seen = 0;
    for (let i = 0; i < h.bins.length; i++) { seen += h.bins[i]; if (count && 2 * seen >= count) return label(i); }
    return "—";
  };
  const rows = [["symbology", "reads", "median", "refused"]];
  for (const [name, h] of Object.entries(d.symbologies)) rows.push([name, h.reads, median(h), h.refused]);
  rows.push(["no read", d.noReads.count, median(d.noReads), ""]);
  $("decoding").innerHTML = "";
  rows.forEach((row, i) => {
    const tr = $("decoding").insertRow();
    for (const v of row) { const cell = document.createElement(i ? "td" : "th"); cell.textContent = v; tr.append(cell); }
  });
}
function showGuidance(list) {
  $("guidance").innerHTML = "";
  for (const a of (list.length ? list : [{message: "—"}])) { const li = document.createElement("li"); li.textContent = a.message; $("guidance").append(li); }
}
function addResult(e) {
  const li = document.createElement("li");
  li.textContent = "#" + e.seq + " " + e.symbology + ": " + e.text;
  $("results").prepend(li);
  while ($("results").children.length > 20) $("results").lastChild.remove();
}
async function refresh() {
  const [code, text] = await api("/api/status");
  if (code === 200) showStatus(JSON.parse(text));
}
function showViewport() {
  $("viewport-toml").textContent = "[scan]\nviewport = [" + viewport.map(v => v.toFixed(3)).join(", ") + "]";
  draw();
}
function draw() {
  const img = $("preview"), c = $("overlay");
  if (img.naturalWidth) frameSize = [img.naturalWidth, img.naturalHeight];
  c.width = img.clientWidth; c.height = img.clientHeight;
  const g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  if (viewport) {
    g.strokeStyle = "#00beff"; g.lineWidth = 3;
    g.strokeRect(viewport[0] * c.width, viewport[1] * c.height, viewport[2] * c.width, viewport[3] * c.height);
    g.fillStyle = "#00beff";
    g.fillRect((viewport[0] + viewport[2]) * c.width - 8, (viewport[1] + viewport[3]) * c.height - 8, 8, 8);
  }
  const size = locatedSize || frameSize;
  if (size && Date.now() - locatedAt < 1500) {
    g.strokeStyle = "#00e63c"; g.lineWidth = 3; g.fillStyle = "#00e63c"; g.font = "13px sans-serif";
    for (const code of located) {
      g.beginPath();
      code.corners.forEach(([x, y], i) => { const px = x * c.width / size[0], py = y * c.height / size[1]; i ? g.lineTo(px, py) : g.moveTo(px, py); });
      g.closePath(); g.stroke();
      if (code.corners.length) g.fillText(code.symbology, code.corners[0][0] * c.width / size[0], code.corners[0][1] * c.height / size[1] - 4);
    }
  }
}
// The viewport, dragged on the overlay: moved, or resized from its bottom-right corner.
$("overlay").onmousedown = e => {
  if (!viewport) return;
  const c = $("overlay"), x = e.offsetX / c.width, y = e.offsetY / c.height;
  const right = viewport[0] + viewport[2], bottom = viewport[1] + viewport[3];
  const corner = Math.abs(x - right) * c.width < 14 && Math.abs(y - bottom) * c.height < 14;
  dragged = {corner, x, y, start: viewport.slice()};
};
window.onmousemove = e => {
  if (!dragged) return;
  const c = $("overlay"), r = c.getBoundingClientRect();
  const x = (e.clientX - r.left) / c.width, y = (e.clientY - r.top) / c.height;
  const s = dragged.start, clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  if (dragged.corner) viewport = [s[0], s[1], clamp(s[2] + x - dragged.x, 0.05, 1 - s[0]), clamp(s[3] + y - dragged.y, 0.05, 1 - s[1])];
  else viewport = [clamp(s[0] + x - dragged.x, 0, 1 - s[2]), clamp(s[1] + y - dragged.y, 0, 1 - s[3]), s[2], s[3]];
  showViewport();
};
window.onmouseup = () => { dragged = null; };

async function loadControls() {
  const [code, text] = await api("/api/controls");
  const box = $("controls");
  if (code !== 200) { box.textContent = text.trim(); return; }
  box.innerHTML = "";
  for (const ctl of JSON.parse(text)) {
    const label = document.createElement("label"), input = document.createElement("input"), out = document.createElement("span");
    input.type = "range"; input.min = ctl.min; input.max = ctl.max; input.step = ctl.step; input.value = ctl.value; input.id = "control-" + ctl.name;
    out.textContent = " " + ctl.value;
    input.oninput = () => { out.textContent = " " + input.value; };
    input.onchange = async () => {
      const [c, t] = await api("/api/controls", ctl.name + "=" + input.value);
      if (c === 200) { changedControls[ctl.name] = JSON.parse(t).toml; }
      else { $("answer").textContent = t.trim(); }
      $("controls-toml").textContent = "[camera.controls]\n" + Object.values(changedControls).join("\n");
    };
    label.append(ctl.name + " ", input, out);
    box.append(label);
  }
}

function listen() {
  const events = new EventSource("/api/events" + q);
  events.onmessage = m => {
    const e = JSON.parse(m.data);
    // The corners are in the pixels of the frame they were found in (its size in the event).
    if (e.event === "located") { located = e.codes; locatedSize = e.width ? [e.width, e.height] : null; locatedAt = Date.now(); draw(); }
    else if (e.event === "result") { addResult(e); refresh(); }
    else if (e.event === "guidance") showGuidance(e.advice);
    else if (["camera", "torch", "scanning-started", "scanning-stopped"].includes(e.event)) refresh();
  };
}

// Status, results and a first frame at once, on the first paint (not after the load event).
(async () => {
  const img = $("preview");
  img.onload = draw;
  new ResizeObserver(draw).observe(img); // frames of another size resize the preview
  img.src = "/snapshot.png?raw=1" + (token ? "&token=" + encodeURIComponent(token) : "");
  listen();
  await refresh();
  const [, text] = await api("/api/results");
  for (const e of JSON.parse(text)) addResult(e);
  loadControls();
  setInterval(refresh, 2000);
  setInterval(draw, 500);
})();
// The live stream after the page's load event: a multipart stream never finishes loading.
window.addEventListener("load", () => { $("preview").src = "/preview.mjpeg" + q; });
</script>
</body></html>
"""#
}

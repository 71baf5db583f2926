// tracekit viewer: the timeline. One row per thread (nested call slices),
// one per context item (drawn by type, seed 000 §5.7) and one per counter,
// all on one time axis; zoom, pan, selection, hover.
"use strict";

TK.LEVEL_H = 12;
TK.MAX_LEVELS = 12;
TK.TRACK_H = 40;

TK.Timeline = function (source) {
  var self = this;
  this.source = source;
  this.canvas = TK.$("tk-canvas");
  this.axis = TK.$("tk-axis");
  this.rows = [];
  var meta = source.meta, labels = TK.$("tk-labels");
  labels.textContent = "";
  function addRow(row, text, note) {
    var lab = TK.el("div", { "class": "tk-label", "data-kind": row.kind, "data-index": String(row.index) }, [text]);
    if (note) lab.appendChild(TK.el("small", { text: note }));
    lab.title = text + (note ? " (" + note + ")" : "");
    labels.appendChild(lab);
    row.label = lab;
    self.rows.push(row);
  }
  (meta.cpus || []).forEach(function (c, i) {
    var note = c.ts.length.toLocaleString("en") + " slices" + (c.omitted ? " · " + c.omitted.toLocaleString("en") + " more not shown" : "");
    addRow({ kind: "cpu", index: i, height: TK.TRACK_H, cpu: c }, "CPU " + c.cpu, note);
  });
  var marked = {};
  meta.markers.forEach(function (m) { marked[m.thread] = true; });
  meta.threads.forEach(function (t, i) {
    // A system trace names hundreds of threads that made no calls: their
    // time is in the CPU rows, so they get no empty row of their own.
    if (t.calls === 0 && !marked[i] && (meta.cpus || []).length) return;
    var levels = Math.max(1, Math.min(t.depth, TK.MAX_LEVELS));
    var note = t.calls.toLocaleString("en") + " calls" + (t.depth > levels ? " · " + levels + " of " + t.depth + " levels shown" : "");
    var row = { kind: "thread", index: i, height: 6 + levels * TK.LEVEL_H, levels: levels, fullLevels: levels };
    addRow(row, t.name, note);
    // A thread's label folds its row to the outermost calls and back.
    row.label.setAttribute("role", "button");
    row.label.setAttribute("tabindex", "0");
    row.label.setAttribute("aria-expanded", "true");
    function toggle() {
      row.levels = row.levels > 1 ? 1 : row.fullLevels;
      row.height = 6 + row.levels * TK.LEVEL_H;
      row.label.setAttribute("aria-expanded", String(row.levels === row.fullLevels));
      self.layout();
      self.draw();
    }
    row.label.addEventListener("click", toggle);
    row.label.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.stopPropagation(); toggle(); } });
  });
  meta.context.forEach(function (c, i) {
    c.min = Infinity; c.max = -Infinity;
    if (c.type !== "string") c.values.forEach(function (v) { if (v < c.min) c.min = v; if (v > c.max) c.max = v; });
    var note = c.type + (c.unit ? ", " + c.unit : "") + (c.type !== "string" && c.values.length ? " · " + TK.fmtNum(c.min) + "–" + TK.fmtNum(c.max) : "");
    addRow({ kind: "context", index: i, height: TK.TRACK_H, track: c }, c.label, note);
  });
  meta.counters.forEach(function (c, i) {
    c.min = 0; c.max = 0;
    c.values.forEach(function (v) { if (v < c.min) c.min = v; if (v > c.max) c.max = v; });
    c.type = "counter";
    addRow({ kind: "counter", index: i, height: TK.TRACK_H, track: c }, c.name, (c.derived ? "derived · " : "") + (c.unit || "") + (c.values.length ? " · max " + TK.fmtNum(c.max) : ""));
  });
  // Measured power split by process (and by thread when there are few):
  // stacked areas, base power and unattributed power at the bottom.
  var ps = meta.powerStack;
  if (ps) {
    [["process", ps.processes], ["thread", ps.threads.length <= 16 ? ps.threads : null]].forEach(function (g, gi) {
      if (!g[1] || !g[1].length) return;
      var series = [ps.idle, ps.unattributed].concat(g[1]), n = ps.idle.watts.length, max = 0;
      for (var b = 0; b < n; b++) {
        var sum = 0;
        series.forEach(function (x) { sum += Math.max(0, x.watts[b]); });
        if (sum > max) max = sum;
      }
      var row = { kind: "power", index: gi, height: 64, stack: { start: ps.start_ns, width: ps.width_ns, series: series, max: max || 1 } };
      addRow(row, "Power by " + g[0], "W, stacked · max " + TK.fmtNum(max));
      row.label.setAttribute("data-series", series.map(function (x) { return x.label; }).join("|"));
    });
  }
  this.layout();
  this.bind();
  window.addEventListener("resize", function () { self.draw(); });
  TK.on("problem", function () { self.draw(); });
  TK.on("highlight", function () { self.draw(); });
};

// Stacks the rows and sizes their labels to match.
TK.Timeline.prototype.layout = function () {
  var y = 0;
  this.rows.forEach(function (r) { r.top = y; y += r.height; r.label.style.height = r.height + "px"; });
  this.height = Math.max(y, 40);
};

TK.Timeline.prototype.width = function () { return Math.max(100, this.canvas.parentNode.clientWidth); };

TK.Timeline.prototype.setView = function (t0, t1) {
  var s = TK.span, w = Math.max(t1 - t0, 50);
  if (w > s[1] - s[0]) w = s[1] - s[0];
  t0 = Math.max(s[0], Math.min(t0, s[1] - w));
  TK.state.view = [t0, t0 + w];
  TK.$("tk-range").textContent = TK.fmtTime(t0) + " – " + TK.fmtTime(t0 + w) + "  (" + TK.fmtDur(w) + ")";
  this.draw();
  TK.emit("view", TK.state.view);
};

TK.Timeline.prototype.zoom = function (factor, at) {
  var v = TK.state.view, c = at == null ? (v[0] + v[1]) / 2 : at;
  this.setView(c - (c - v[0]) * factor, c + (v[1] - c) * factor);
};
TK.Timeline.prototype.pan = function (fraction) {
  var v = TK.state.view, d = (v[1] - v[0]) * fraction;
  this.setView(v[0] + d, v[1] + d);
};
TK.Timeline.prototype.centerOn = function (t) {
  var v = TK.state.view, w = v[1] - v[0];
  this.setView(t - w / 2, t + w / 2);
};
// Centres the next (dir = 1) or previous (-1) problem occurrence.
TK.Timeline.prototype.jump = function (dir) {
  var p = TK.state.problem, v = TK.state.view, c = (v[0] + v[1]) / 2, eps = (v[1] - v[0]) * 1e-6;
  if (!p || !p.occurrences.length) return;
  var times = p.occurrences.map(function (o) { return o.ts_ns; }).sort(function (a, b) { return a - b; }), t = null;
  if (dir > 0) { var i = TK.upper(times, c + eps); if (i < times.length) t = times[i]; }
  else { var j = TK.lower(times, c - eps) - 1; if (j >= 0) t = times[j]; }
  if (t !== null) this.centerOn(t);
};

TK.Timeline.prototype.reset = function () {
  TK.state.selection = null;
  TK.emit("selection", null);
  this.setView(TK.span[0], TK.span[1]);
};

TK.Timeline.prototype.x = function (t) { var v = TK.state.view; return (t - v[0]) / (v[1] - v[0]) * this.w; };
TK.Timeline.prototype.t = function (x) { var v = TK.state.view; return v[0] + x / this.w * (v[1] - v[0]); };

TK.Timeline.prototype.resize = function (c, w, h) {
  var r = window.devicePixelRatio || 1;
  if (c.width !== Math.round(w * r) || c.height !== Math.round(h * r)) {
    c.width = Math.round(w * r); c.height = Math.round(h * r);
    c.style.height = h + "px";
  }
  var ctx = c.getContext("2d");
  ctx.setTransform(r, 0, 0, r, 0, 0);
  return ctx;
};

// Chooses about n "nice" tick steps over the window.
TK.niceStep = function (w, n) {
  var raw = w / n, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
};

TK.Timeline.prototype.draw = function () {
  if (!TK.state.view) return;
  var self = this, W = this.w = this.width(), H = this.height, v = TK.state.view;
  var ctx = this.resize(this.canvas, W, H);
  ctx.clearRect(0, 0, W, H);
  var frame = this.source.frame(v[0], v[1], Math.round(W), function () { self.draw(); });
  if (frame) this.frame = frame;
  frame = this.frame;
  var step = TK.niceStep(v[1] - v[0], Math.max(2, W / 110)), first = Math.ceil(v[0] / step) * step;
  var actx = this.resize(this.axis, W, 24);
  actx.clearRect(0, 0, W, 24);
  actx.fillStyle = "#444e5f"; actx.font = "10px system-ui, sans-serif"; actx.strokeStyle = "#9aa5b5";
  ctx.strokeStyle = "#eef0f4"; ctx.lineWidth = 1;
  for (var g = first; g <= v[1]; g += step) {
    var gx = Math.round(this.x(g)) + 0.5;
    ctx.beginPath(); ctx.moveTo(gx, 0); ctx.lineTo(gx, H); ctx.stroke();
    actx.beginPath(); actx.moveTo(gx, 16); actx.lineTo(gx, 24); actx.stroke();
    actx.fillText(TK.fmtTime(g), gx + 3, 12);
  }
  var p = TK.state.problem;
  if (p) {
    ctx.fillStyle = "rgba(255, 190, 0, 0.22)";
    p.intervals.forEach(function (iv) {
      if (iv[1] < v[0] || iv[0] > v[1]) return;
      var a = self.x(iv[0]), b = self.x(iv[1]);
      ctx.fillRect(a, 0, Math.max(1, b - a), H);
    });
  }
  this.rows.forEach(function (row) {
    ctx.save();
    ctx.beginPath(); ctx.rect(0, row.top, W, row.height); ctx.clip();
    ctx.strokeStyle = "#e3e7ee"; ctx.beginPath(); ctx.moveTo(0, row.top + row.height - 0.5); ctx.lineTo(W, row.top + row.height - 0.5); ctx.stroke();
    if (row.kind === "thread") self.drawThread(ctx, row, frame);
    else if (row.kind === "power") self.drawPower(ctx, row);
    else if (row.kind === "cpu") self.drawCpu(ctx, row);
    else self.drawTrack(ctx, row);
    ctx.restore();
  });
  this.drawProblem(ctx);
  if (!this.painted && frame) {
    this.painted = true;
    window.TK_FIRST_PAINT = performance.now();
    document.body.setAttribute("data-painted", "1");
  }
};

TK.Timeline.prototype.drawThread = function (ctx, row, frame) {
  var self = this, W = this.w;
  if (!frame) return;
  var th = frame.threads[row.index];
  ctx.font = "10px system-ui, sans-serif"; ctx.textBaseline = "middle";
  th.omitted.forEach(function (bars, d) {
    if (d >= row.levels) return;
    var y = row.top + 3 + d * TK.LEVEL_H;
    bars.forEach(function (b) {
      ctx.fillStyle = "rgba(110, 120, 135, " + Math.min(0.75, 0.2 + b.c / 50) + ")";
      var a = self.x(b.s); ctx.fillRect(a, y + 3, Math.max(1, self.x(b.e) - a), TK.LEVEL_H - 6);
    });
  });
  var hl = TK.state.highlight;
  th.levels.forEach(function (boxes, d) {
    if (d >= row.levels) return;
    var y = row.top + 3 + d * TK.LEVEL_H;
    boxes.forEach(function (b) {
      var a = Math.max(-1, self.x(b.s)), e = Math.min(W + 1, self.x(b.e)), w = Math.max(1, e - a);
      ctx.fillStyle = TK.color(b.m);
      ctx.globalAlpha = (b.c > 1 ? 0.55 : 1) * (hl === null || hl === undefined || hl === b.m ? 1 : 0.18);
      ctx.fillRect(a, y, w, TK.LEVEL_H - 1);
      ctx.globalAlpha = 1;
      if (w > 36 && b.c === 1) {
        var name = TK.methodName(b.m), short = name.slice(name.lastIndexOf(".", name.lastIndexOf(".") - 1) + 1);
        ctx.fillStyle = "#1d2330";
        ctx.save(); ctx.beginPath(); ctx.rect(a, y, w, TK.LEVEL_H); ctx.clip();
        ctx.fillText(short, Math.max(a, 0) + 3, y + TK.LEVEL_H / 2);
        ctx.restore();
      }
    });
  });
  ctx.fillStyle = "#7b3fa0";
  this.source.meta.markers.forEach(function (m) {
    if (m.thread !== row.index) return;
    var x = self.x(m.ts);
    if (x >= 0 && x <= W) ctx.fillRect(x - 1, row.top, 2, row.height);
  });
};

TK.POWER_COLORS = ["#d5d9e0", "#a9b0bc", "#e07b39", "#3b82c4", "#4caf7a", "#c44e8a", "#8a6bd1", "#c9a227", "#2fa6a8", "#d9534f"];

// Stacked power per bin (see `tracekit_attribution::bins`).
TK.Timeline.prototype.drawPower = function (ctx, row) {
  var st = row.stack, v = TK.state.view, W = this.w, n = st.series[0].watts.length, pad = 4;
  var b0 = Math.max(0, Math.floor((v[0] - st.start) / st.width)), b1 = Math.min(n - 1, Math.floor((v[1] - st.start) / st.width));
  var base = new Float64Array(n), h = row.height - 2 * pad, self = this;
  st.series.forEach(function (x, k) {
    ctx.fillStyle = TK.POWER_COLORS[k % TK.POWER_COLORS.length];
    for (var b = b0; b <= b1; b++) {
      var w = Math.max(0, x.watts[b]);
      if (w <= 0) continue;
      var xa = self.x(st.start + b * st.width), xb = self.x(st.start + (b + 1) * st.width);
      var y1 = row.top + pad + h * (1 - base[b] / st.max), y0 = row.top + pad + h * (1 - (base[b] + w) / st.max);
      ctx.fillRect(xa, y0, Math.max(1, xb - xa), y1 - y0);
      base[b] += w;
    }
  });
};

TK.Timeline.prototype.trackY = function (row, v) {
  var t = row.track, pad = 6, span = t.max - t.min || 1;
  return row.top + pad + (1 - (v - t.min) / span) * (row.height - 2 * pad);
};

TK.Timeline.prototype.drawTrack = function (ctx, row) {
  var self = this, t = row.track, n = t.times.length, W = this.w, v = TK.state.view;
  if (!n) return;
  var i0 = Math.max(0, TK.upper(t.times, v[0]) - 1), i1 = Math.min(n - 1, TK.lower(t.times, v[1]));
  ctx.lineWidth = 1.5;
  if (t.type === "string") {
    ctx.font = "11px system-ui, sans-serif"; ctx.textBaseline = "middle";
    var mid = row.top + row.height / 2;
    for (var i = i0; i <= i1; i++) {
      if (i > 0 && t.values[i] === t.values[i - 1] && i !== i0) continue;
      var x = this.x(t.times[i]), next = W;
      for (var j = i + 1; j < n; j++) if (t.values[j] !== t.values[i]) { next = this.x(t.times[j]); break; }
      ctx.fillStyle = "rgba(40, 120, 80, 0.10)"; ctx.fillRect(x, row.top + 4, Math.min(next, W) - x, row.height - 8);
      ctx.fillStyle = "#1e6b45"; ctx.fillRect(x - 1, row.top + 2, 2, row.height - 4);
      ctx.save(); ctx.beginPath(); ctx.rect(x, row.top, Math.max(0, next - x - 2), row.height); ctx.clip();
      ctx.fillStyle = "#173d2a"; ctx.fillText(String(t.values[i]), Math.max(x, 0) + 4, mid);
      ctx.restore();
    }
    return;
  }
  var stairs = t.type === "int" || t.type === "long" || t.type === "counter";
  ctx.strokeStyle = t.type === "counter" ? "#6b3a8a" : "#1e6b45";
  ctx.fillStyle = t.type === "counter" ? "rgba(107, 58, 138, 0.15)" : "rgba(30, 107, 69, 0.10)";
  ctx.beginPath();
  var stepDecimate = (i1 - i0) > 4 * W;
  var lastX = -Infinity;
  for (var k = i0; k <= i1; k++) {
    var x = this.x(t.times[k]), y = this.trackY(row, t.values[k]);
    if (k === i0) { ctx.moveTo(x, y); continue; }
    if (stepDecimate && x - lastX < 0.25 && k !== i1) continue;
    if (stairs) ctx.lineTo(x, this.trackY(row, t.values[k - 1]));
    ctx.lineTo(x, y);
    lastX = x;
  }
  if (stairs) ctx.lineTo(Math.min(W, this.x(TK.span[1])), this.trackY(row, t.values[i1]));
  ctx.stroke();
  if (!stepDecimate && i1 - i0 < W / 8) {
    ctx.fillStyle = ctx.strokeStyle;
    for (var q = i0; q <= i1; q++) { ctx.beginPath(); ctx.arc(this.x(t.times[q]), this.trackY(row, t.values[q]), 2, 0, 7); ctx.fill(); }
  }
};

// Occurrences become DOM markers (so tests and assistive tools can find
// them); the method's calls inside/outside the condition are triangles.
TK.Timeline.prototype.drawProblem = function (ctx) {
  var self = this, p = TK.state.problem, overlay = TK.$("tk-overlay"), v = TK.state.view, W = this.w;
  overlay.textContent = "";
  if (!p) return;
  var threadRow = {};
  this.rows.forEach(function (r) { if (r.kind === "thread") threadRow[r.index] = r; });
  function tri(list, color) {
    ctx.fillStyle = color;
    var drawn = 0;
    for (var i = 0; i < list.length && drawn < 20000; i++) {
      var c = list[i], r = threadRow[c.thread];
      if (!r || c.ts_ns < v[0] || c.ts_ns > v[1]) continue;
      var x = self.x(c.ts_ns), y = r.top;
      ctx.beginPath(); ctx.moveTo(x - 4, y); ctx.lineTo(x + 4, y); ctx.lineTo(x, y + 7); ctx.closePath(); ctx.fill();
      drawn++;
    }
  }
  tri(p.calls_outside, "#7d8796");
  tri(p.calls_inside, "#d3202a");
  var shown = 0, visible = p.occurrences.filter(function (o) { return o.ts_ns >= v[0] && o.ts_ns <= v[1]; }).length;
  var many = visible > 40 ? " tk-many" : "";
  p.occurrences.forEach(function (o, k) {
    if (o.ts_ns < v[0] || o.ts_ns > v[1] || shown >= 500) return;
    shown++;
    var m = TK.el("div", { "class": "tk-occurrence" + many, "data-index": String(k), style: "left:" + self.x(o.ts_ns).toFixed(1) + "px" });
    m.title = p.title + " at " + TK.fmtTime(o.ts_ns);
    overlay.appendChild(m);
  });
  overlay.setAttribute("data-occurrences", String(shown));
};

TK.Timeline.prototype.rowAt = function (y) {
  for (var i = 0; i < this.rows.length; i++) { var r = this.rows[i]; if (y >= r.top && y < r.top + r.height) return r; }
  return null;
};

TK.Timeline.prototype.hover = function (ev) {
  var tip = TK.$("tk-tooltip"), rect = this.canvas.getBoundingClientRect();
  var x = ev.clientX - rect.left, y = ev.clientY - rect.top, t = this.t(x), row = this.rowAt(y);
  var cur = TK.$("tk-cursor");
  cur.hidden = false; cur.style.left = x + "px";
  var html = null;
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }
  if (row && row.kind === "thread" && this.frame) {
    var d = Math.floor((y - row.top - 3) / TK.LEVEL_H), boxes = this.frame.threads[row.index].levels[d] || [];
    var tol = (TK.state.view[1] - TK.state.view[0]) / this.w * 2;
    var b = boxes.filter(function (b) { return b.s - tol <= t && t <= b.e + tol; })[0];
    if (b) {
      html = "<b>" + esc(TK.methodName(b.m)) + "</b><table>" +
        (b.c > 1 ? "<tr><td class=tk-k>merged</td><td>" + b.c.toLocaleString("en") + " calls narrower than a pixel (zoom in)</td></tr>" : "") +
        "<tr><td class=tk-k>duration</td><td>" + TK.fmtDur(b.e - b.s) + "</td></tr>" +
        "<tr><td class=tk-k>depth</td><td>" + d + "</td></tr>" +
        "<tr><td class=tk-k>start</td><td>" + TK.fmtTime(b.s) + "</td></tr>" +
        "<tr><td class=tk-k>thread</td><td>" + esc(TK.meta.threads[row.index].name) + "</td></tr></table>";
    }
  } else if (row && row.kind === "power") {
    var st = row.stack, b = Math.floor((t - st.start) / st.width);
    if (b >= 0 && b < st.series[0].watts.length) {
      html = "<b>power at " + TK.fmtTime(t) + "</b><table>";
      st.series.forEach(function (x, k) {
        html += "<tr><td class=tk-k><span class=tk-swatch style=\"background:" + TK.POWER_COLORS[k % TK.POWER_COLORS.length] + "\"></span>" + esc(x.label) + "</td><td>" + x.watts[b].toFixed(3) + " W</td></tr>";
      });
      html += "</table>";
    }
  } else if (row && row.kind === "cpu") {
    var k = TK.cpuSliceAt(row.cpu, t, (TK.state.view[1] - TK.state.view[0]) / this.w * 2);
    if (k >= 0) html = TK.cpuTooltip(row.cpu, k, esc);
  } else if (row) {
    html = "<b>at " + TK.fmtTime(t) + "</b><table>";
    TK.meta.context.forEach(function (c) {
      var val = TK.contextAt(c, t);
      html += "<tr><td class=tk-k>" + esc(c.label) + "</td><td>" + (val === undefined ? "—" : esc(TK.fmtNum(val)) + (c.unit ? " " + esc(c.unit) : "")) + "</td></tr>";
    });
    TK.meta.counters.forEach(function (c) {
      var i = TK.upper(c.times, t) - 1;
      html += "<tr><td class=tk-k>" + esc(c.name) + "</td><td>" + (i < 0 ? "—" : TK.fmtNum(c.values[i]) + (c.unit ? " " + esc(c.unit) : "")) + "</td></tr>";
    });
    html += "</table>";
  }
  if (html) {
    tip.innerHTML = html; tip.hidden = false;
    var tx = ev.clientX + 14, ty = ev.clientY + 14;
    if (tx + tip.offsetWidth > window.innerWidth) tx = ev.clientX - tip.offsetWidth - 10;
    if (ty + tip.offsetHeight > window.innerHeight) ty = ev.clientY - tip.offsetHeight - 10;
    tip.style.left = tx + "px"; tip.style.top = ty + "px";
  } else tip.hidden = true;
};

TK.Timeline.prototype.select = function (a, b) {
  if (b < a) { var t = a; a = b; b = t; }
  TK.state.selection = [a, b];
  TK.emit("selection", TK.state.selection);
  this.setView(a, b);
};

TK.Timeline.prototype.bind = function () {
  var self = this, c = this.canvas, sel = TK.$("tk-selection"), drag = null;
  c.addEventListener("mousedown", function (e) {
    if (e.button !== 0 && e.button !== 1) return;
    e.preventDefault();
    // Middle button or Alt + drag pans; a plain drag selects.
    drag = { x: e.clientX - c.getBoundingClientRect().left, pan: e.button === 1 || e.altKey, view: TK.state.view.slice() };
    c.focus();
  });
  window.addEventListener("mousemove", function (e) {
    if (!drag) return;
    var x = e.clientX - c.getBoundingClientRect().left, a = Math.min(drag.x, x), b = Math.max(drag.x, x);
    if (drag.pan) {
      var dt = (x - drag.x) / self.w * (drag.view[1] - drag.view[0]);
      self.setView(drag.view[0] - dt, drag.view[1] - dt);
      return;
    }
    sel.hidden = false; sel.style.left = a + "px"; sel.style.width = (b - a) + "px";
  });
  window.addEventListener("mouseup", function (e) {
    if (!drag) return;
    var x = e.clientX - c.getBoundingClientRect().left, x0 = drag.x, pan = drag.pan;
    drag = null; sel.hidden = true;
    if (!pan && Math.abs(x - x0) > 3) self.select(self.t(Math.min(x, x0)), self.t(Math.max(x, x0)));
  });
  c.addEventListener("mousemove", function (e) { self.hover(e); });
  c.addEventListener("mouseleave", function () { TK.$("tk-tooltip").hidden = true; TK.$("tk-cursor").hidden = true; });
  c.addEventListener("wheel", function (e) {
    e.preventDefault();
    var x = e.clientX - c.getBoundingClientRect().left;
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) self.pan((e.deltaX || e.deltaY) / self.w);
    else self.zoom(Math.exp(e.deltaY * 0.002), self.t(x));
  }, { passive: false });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) return;
    var k = e.key;
    if (k === "ArrowLeft" || k === "a" || k === "A") self.pan(-0.2);
    else if (k === "ArrowRight" || k === "d" || k === "D") self.pan(0.2);
    else if (k === "ArrowUp" || k === "w" || k === "W" || k === "+" || k === "=") self.zoom(0.5);
    else if (k === "ArrowDown" || k === "s" || k === "S" || k === "-") self.zoom(2);
    else if (k === "Home" || k === "0") self.reset();
    else if (k === "Escape") { TK.state.selection = null; TK.emit("selection", null); }
    else if (k === "n" || k === "N" || k === "p" || k === "P") self.jump(k === "n" || k === "N" ? 1 : -1);
    else return;
    e.preventDefault();
  });
  TK.$("tk-zoom-in").addEventListener("click", function () { self.zoom(0.5); });
  TK.$("tk-zoom-out").addEventListener("click", function () { self.zoom(2); });
  TK.$("tk-reset").addEventListener("click", function () { self.reset(); });
};

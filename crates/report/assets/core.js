// tracekit viewer: shared helpers, state and events.
"use strict";
var TK = window.TK = {};

TK.$ = function (id) { return document.getElementById(id); };

// Creates an element with attributes and children (strings become text).
TK.el = function (tag, attrs, children) {
  var e = document.createElement(tag);
  if (attrs) for (var k in attrs) {
    if (k === "text") e.textContent = attrs[k];
    else if (k === "style") e.style.cssText = attrs[k];
    else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), attrs[k]);
    else e.setAttribute(k, attrs[k]);
  }
  (children || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return e;
};

// Formats a duration in ns with a unit that keeps three significant digits.
TK.fmtDur = function (ns) {
  var a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toPrecision(4) + " s";
  if (a >= 1e6) return (ns / 1e6).toPrecision(4) + " ms";
  if (a >= 1e3) return (ns / 1e3).toPrecision(4) + " µs";
  return Math.round(ns) + " ns";
};

// Formats a timestamp (ns on the session's timeline, 0 = trace start), the
// same origin `tracekit context --at` and `problems --json` use.
TK.fmtTime = function (ns) { return TK.fmtDur(ns); };

TK.fmtNum = function (v) {
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 1000 ? v.toFixed(1) : v.toPrecision(4);
};

// A stable colour per method, from its name.
TK.colorCache = [];
TK.color = function (m) {
  var c = TK.colorCache[m];
  if (c) return c;
  var name = (TK.meta.methods[m] || {}).name || String(m), h = 2166136261;
  for (var i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); h = Math.imul(h, 16777619); }
  h >>>= 0;
  c = "hsl(" + (h % 360) + "," + (45 + (h >> 9) % 30) + "%," + (62 + (h >> 17) % 16) + "%)";
  TK.colorCache[m] = c;
  return c;
};

TK.methodName = function (m) { var x = TK.meta.methods[m]; return x ? x.name : "method " + m; };

// Decoders for the report's base64 little-endian columns.
TK.b64bytes = function (s) {
  var bin = atob(s), n = bin.length, b = new Uint8Array(n);
  for (var i = 0; i < n; i++) b[i] = bin.charCodeAt(i);
  return b;
};
TK.f64 = function (s) { return s == null ? null : new Float64Array(TK.b64bytes(s).buffer); };
TK.f32 = function (s) { return s == null ? null : new Float32Array(TK.b64bytes(s).buffer); };
TK.u32 = function (s) { return s == null ? null : new Uint32Array(TK.b64bytes(s).buffer); };

// First index i in sorted array a with a[i] > x (lo..hi range optional).
TK.upper = function (a, x, lo, hi) {
  lo = lo || 0; hi = hi == null ? a.length : hi;
  while (lo < hi) { var mid = (lo + hi) >>> 1; if (a[mid] <= x) lo = mid + 1; else hi = mid; }
  return lo;
};
// First index i with a[i] >= x.
TK.lower = function (a, x, lo, hi) {
  lo = lo || 0; hi = hi == null ? a.length : hi;
  while (lo < hi) { var mid = (lo + hi) >>> 1; if (a[mid] < x) lo = mid + 1; else hi = mid; }
  return lo;
};

// First index >= from with a[i] >= x, searching outward from `from` (the
// answer is usually near; see `gallop` in slices.rs).
TK.gallop = function (a, from, x) {
  var n = a.length, lo = from, hi = from, step = 1;
  while (hi < n && a[hi] < x) { lo = hi + 1; hi = from + step; step *= 2; }
  return TK.lower(a, x, lo, Math.min(hi, n));
};

// The value of a context track at time t (seed 000 §6.6): the last record's
// value for int/long/string; linear interpolation between the neighbouring
// records for float/double; undefined before the first record and, for
// float/double, after the last.
TK.contextAt = function (track, t) {
  var i = TK.upper(track.times, t) - 1;
  if (i < 0) return undefined;
  var continuous = track.type === "float" || track.type === "double";
  if (!continuous) return track.values[i];
  if (track.times[i] === t) return track.values[i];
  if (i + 1 >= track.times.length) return undefined;
  var t0 = track.times[i], t1 = track.times[i + 1], v0 = track.values[i], v1 = track.values[i + 1];
  return v0 + (t - t0) / (t1 - t0) * (v1 - v0);
};

// A tiny event bus: "view" (visible window changed), "selection",
// "problem", "highlight" (a method chosen in the profile).
TK.handlers = {};
TK.on = function (ev, fn) { (TK.handlers[ev] = TK.handlers[ev] || []).push(fn); };
TK.emit = function (ev, arg) { (TK.handlers[ev] || []).forEach(function (f) { f(arg); }); };

TK.state = { view: null, selection: null, problem: null, conditioned: false, highlight: null };

// Which intervals the tables cover: the selection, the condition intervals,
// both (intersected) or the whole session (null).
TK.tableIntervals = function () {
  var sel = TK.state.selection ? [[TK.state.selection[0], TK.state.selection[1]]] : null;
  var cond = TK.state.conditioned && TK.state.problem && TK.state.problem.intervals.length ? TK.state.problem.intervals : null;
  if (!sel) return cond;
  if (!cond) return sel;
  var out = [];
  cond.forEach(function (iv) {
    var a = Math.max(iv[0], sel[0][0]), b = Math.min(iv[1], sel[0][1]);
    if (a < b) out.push([a, b]);
  });
  return out;
};

TK.start = function () {
  var mode = document.body.getAttribute("data-mode");
  var source = mode === "server" ? new TK.ServerSource() : new TK.EmbeddedSource(JSON.parse(TK.$("tk-data").textContent));
  TK.source = source;
  source.ready(function (err) {
    if (err) { TK.$("tk-summary").textContent = "Could not load the session: " + err; return; }
    TK.meta = source.meta;
    TK.span = source.meta.span;
    TK.$("tk-name").textContent = source.meta.name;
    TK.$("tk-facts").textContent = source.meta.threads.length + " threads · " + source.meta.totalCalls.toLocaleString("en") +
      " calls · " + source.meta.context.length + " context items · clock " + source.meta.clocks;
    var lost = source.meta.lostEvents || 0;
    TK.$("tk-summary").textContent = (lost > 0 ? "Lost events: " + lost.toLocaleString("en") +
      " events were dropped while recording (buffers full); counts and times miss them. " : "") + source.summaryNote();
    TK.timeline = new TK.Timeline(source);
    TK.tables = new TK.Tables(source);
    TK.problems = new TK.Problems(source);
    TK.timeline.setView(TK.span[0], TK.span[1]);
  });
};

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { TK.start(); });
else setTimeout(function () { TK.start(); }, 0);

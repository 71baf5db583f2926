// tracekit viewer: where the data comes from. EmbeddedSource reads the
// report's inlined data; ServerSource asks `tracekit ui`. Both answer the
// same questions: frame (what to draw in a window), profile (tables for a set
// of intervals) and solve (a problem definition).
"use strict";

// Level of detail (same rule as the Rust `Level::boxes`): calls at least a
// pixel wide are drawn as they are; narrower calls are merged per pixel column.
TK.levelBoxes = function (l, t0, t1, nsPerPx, depth) {
  var out = [], n = l.start.length, px = Math.max(nsPerPx, 1e-9);
  var i = TK.upper(l.end, t0);
  while (i < n && l.start[i] < t1) {
    var s = l.start[i], e = l.end[i];
    if (e - s >= px) { out.push({ s: s, e: e, m: l.method[i] & 0x7fffffff, c: 1, i: i, d: depth }); i++; continue; }
    var col = Math.floor((Math.max(s, t0) - t0) / px) + 1, edge = t0 + col * px;
    var j = TK.gallop(l.start, i + 1, edge);
    var end = l.end[j - 1], last = out[out.length - 1];
    if (last && last.c > 1 && last.m === (l.method[i] & 0x7fffffff) && last.e + px >= s) { last.e = Math.max(last.e, end); last.c += j - i; }
    else out.push({ s: s, e: end, m: l.method[i] & 0x7fffffff, c: j - i, i: i, d: depth });
    i = j;
  }
  return out;
};

TK.EmbeddedSource = function (data) {
  this.data = data;
  this.meta = data.meta;
  this.summary = data.summary;
  this.threads = data.slices.map(function (t) {
    return {
      levels: t.levels.map(function (l) {
        return { start: TK.f64(l.start), end: TK.f64(l.end), cpuDur: TK.f32(l.cpuDur), energy: TK.f64(l.energy), method: TK.u32(l.method), parent: TK.u32(l.parent) };
      }),
      omitted: t.omitted.map(TK.u32)
    };
  });
};
TK.EmbeddedSource.prototype.ready = function (cb) { cb(null); };
TK.EmbeddedSource.prototype.summaryNote = function () {
  var s = this.summary;
  if (!s.summarised) return "";
  return "Summarised: " + s.shownCalls.toLocaleString("en") + " of " + s.totalCalls.toLocaleString("en") +
    " calls drawn individually; the " + (s.totalCalls - s.shownCalls).toLocaleString("en") + " calls of " + TK.fmtDur(s.maxOmittedNs) +
    " or less are drawn as grey density bars and left out of selection profiles (tracekit ui shows every call).";
};
TK.EmbeddedSource.prototype.frame = function (t0, t1, px) {
  var nsPerPx = (t1 - t0) / px, span = this.meta.span, bw = (span[1] - span[0]) / 2048;
  return {
    threads: this.threads.map(function (t) {
      var levels = t.levels.map(function (l, d) { return TK.levelBoxes(l, t0, t1, nsPerPx, d); });
      var omitted = t.omitted.map(function (counts) {
        var out = [], b0 = Math.max(0, Math.floor((t0 - span[0]) / bw)), b1 = Math.min(2047, Math.floor((t1 - span[0]) / bw));
        for (var b = b0; b <= b1; b++) if (counts[b]) out.push({ s: span[0] + b * bw, e: span[0] + (b + 1) * bw, c: counts[b] });
        return out;
      });
      return { levels: levels, omitted: omitted };
    })
  };
};
TK.EmbeddedSource.prototype.profile = function (intervals, cb) {
  cb(null, intervals ? TK.intervalProfile(this.threads, intervals) : this.data.profile);
};
TK.EmbeddedSource.prototype.presets = function () { return this.data.problems; };
TK.EmbeddedSource.prototype.solve = function (def, cb) {
  var same = this.data.problems.filter(function (p) { return JSON.stringify(p.def) === JSON.stringify(def); })[0];
  if (same) { cb(null, same); return; }
  var solved = TK.solveInBrowser ? TK.solveInBrowser(this, def) : { error: "not available" };
  cb(solved.error || null, solved.view);
};

TK.ServerSource = function () { this.cache = null; this.pending = null; this.wanted = null; };
TK.ServerSource.prototype.get = function (url, cb, body) {
  var opts = body ? { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) } : {};
  fetch(url, opts).then(function (r) {
    return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || r.statusText); return j; });
  }).then(function (j) { cb(null, j); }, function (e) { cb(e.message || String(e)); });
};
TK.ServerSource.prototype.ready = function (cb) {
  var self = this;
  this.get("api/meta", function (err, j) {
    if (err) return cb(err);
    self.meta = j.meta; self.problems = j.problems;
    cb(null);
  });
};
TK.ServerSource.prototype.summaryNote = function () {
  return "Level of detail: calls narrower than a pixel are merged per pixel column (hover shows how many); zoom in to see each call.";
};
// One request in flight at a time: while it runs, only the newest window
// asked for is remembered and fetched next, so fast zooming or panning
// never queues stale work on the server.
TK.ServerSource.prototype.frame = function (t0, t1, px, onReady) {
  var key = [Math.floor(t0), Math.ceil(t1), px].join(":");
  if (this.cache && this.cache.key === key) return this.cache.data;
  this.wanted = key;
  this.onReady = onReady;
  if (!this.pending) this.fetchFrame(key);
  return this.cache ? this.cache.data : null;
};
TK.ServerSource.prototype.fetchFrame = function (key) {
  var self = this, parts = key.split(":"), t = performance.now();
  this.pending = key;
  this.get("api/slices?t0=" + parts[0] + "&t1=" + parts[1] + "&px=" + parts[2], function (err, j) {
    self.pending = null;
    if (err) { TK.$("tk-summary").textContent = "Server: " + err; return; }
    var data = {
      threads: j.threads.map(function (th) {
        return { levels: th.levels.map(function (l, d) { return l.map(function (b) { return { s: b[0], e: b[1], m: b[2], c: b[3], i: b[4], d: d }; }); }), omitted: [] };
      })
    };
    self.cache = { key: key, data: data };
    self.lastMs = performance.now() - t;
    if (self.wanted && self.wanted !== key) self.fetchFrame(self.wanted);
    else self.wanted = null;
    self.onReady();
  });
};
TK.ServerSource.prototype.profile = function (intervals, cb) { this.get("api/profile", cb, { intervals: intervals }); };
TK.ServerSource.prototype.presets = function () { return this.problems; };
TK.ServerSource.prototype.solve = function (def, cb) {
  var q = "kind=" + def.kind + "&method=" + encodeURIComponent(def.method) + (def.when ? "&when=" + encodeURIComponent(def.when) : "");
  this.get("api/problem?" + q, cb);
};

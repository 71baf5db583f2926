// tracekit viewer: the problem view (seed 000 §5.8–5.9, §6.6): BRB or a
// method + condition, the occurrences, the intervals where the condition
// holds, the method's calls inside and outside them, and the ranked hints.
"use strict";

TK.Problems = function (source) {
  var self = this;
  this.source = source;
  var list = TK.$("tk-labels-list");
  TK.meta.context.forEach(function (c) { list.appendChild(TK.el("option", { value: c.label + " " })); });
  TK.$("tk-problem-form").addEventListener("submit", function (e) { e.preventDefault(); self.apply(); });
  ["tk-method", "tk-when"].forEach(function (id) {
    TK.$(id).addEventListener("focus", function () { document.querySelector("input[name=kind][value=method]").checked = true; });
  });
  var presets = TK.$("tk-presets"), defs = source.presets() || [];
  if (defs.length) presets.appendChild(TK.el("span", { "class": "tk-note", text: "Computed by tracekit:" }));
  defs.forEach(function (p) {
    presets.appendChild(TK.el("button", { type: "button", "class": "tk-preset", text: p.title, onclick: function () { self.fill(p.def); self.show(p); } }));
  });
};

TK.Problems.prototype.fill = function (def) {
  document.querySelector("input[name=kind][value=" + def.kind + "]").checked = true;
  if (def.kind === "brb") TK.$("tk-brb-method").value = def.method;
  else { TK.$("tk-method").value = def.method; TK.$("tk-when").value = def.when; }
};

TK.Problems.prototype.definition = function () {
  var kind = document.querySelector("input[name=kind]:checked").value;
  if (kind === "brb") return { kind: "brb", method: TK.$("tk-brb-method").value.trim() || "brb" };
  return { kind: "method", method: TK.$("tk-method").value.trim(), when: TK.$("tk-when").value.trim() };
};

TK.Problems.prototype.apply = function () {
  var self = this, def = this.definition(), out = TK.$("tk-problem-result");
  if (def.kind === "method" && !def.method) { out.innerHTML = "<p class=tk-error>Name a method.</p>"; return; }
  out.textContent = "Computing…";
  this.source.solve(def, function (err, view) {
    if (err) { out.textContent = ""; out.appendChild(TK.el("p", { "class": "tk-error", text: err })); return; }
    self.show(view);
  });
};

TK.Problems.prototype.show = function (p) {
  TK.state.problem = p;
  var out = TK.$("tk-problem-result");
  out.textContent = "";
  out.appendChild(TK.el("h2", { text: p.title }));
  var counts = p.occurrences.length + " occurrence" + (p.occurrences.length === 1 ? "" : "s");
  if (p.def.kind === "method" && p.def.when) counts += " · " + p.calls_inside.length + " calls inside, " + p.calls_outside.length + " outside the " + p.intervals.length + " intervals where the condition holds";
  out.appendChild(TK.el("div", { "class": "tk-counts", id: "tk-occurrence-count", text: counts }));
  if (p.note) out.appendChild(TK.el("div", { "class": "tk-note", text: p.note }));
  var en = p.intervals && p.intervals.length ? TK.energyInOut(p.intervals) : null;
  if (en) {
    var mean = function (j, s) { return s > 0 ? (j / s).toFixed(3) + " W" : "—"; };
    out.appendChild(TK.el("div", { "class": "tk-counts", id: "tk-problem-energy",
      text: "Energy: " + TK.fmtJ(en.inside) + " inside (" + en.insideS.toFixed(1) + " s, mean " + mean(en.inside, en.insideS) + "), " +
        TK.fmtJ(en.outside) + " outside (" + en.outsideS.toFixed(1) + " s, mean " + mean(en.outside, en.outsideS) + ")" }));
  }
  var occ = TK.el("div", { "class": "tk-note" });
  p.occurrences.slice(0, 12).forEach(function (o) {
    occ.appendChild(TK.el("button", { type: "button", "class": "tk-occ-link", text: TK.fmtTime(o.ts_ns), onclick: function () { TK.timeline.centerOn(o.ts_ns); } }));
  });
  if (p.occurrences.length > 12) occ.appendChild(document.createTextNode(" …"));
  out.appendChild(occ);
  if (p.hints.length) {
    var table = TK.el("table", { "class": "tk-table", id: "tk-hints" });
    table.appendChild(TK.el("thead", null, [TK.el("tr", null, ["#", "Context item", "Compared by", "At the occurrences", "Score", "Raw"].map(function (h) {
      return TK.el("th", { text: h, title: h === "Score" ? "how unlike the item at nearby times (0–1): what ranks" : h === "Raw" ? "how unlike the whole session (0–1)" : "" });
    }))]));
    var body = TK.el("tbody"), maxScore = Math.max.apply(null, p.hints.map(function (h) { return h.score || 0; }).concat([1e-9]));
    var confoundedShown = false;
    p.hints.forEach(function (h, i) {
      if (h.confounded_with_time && !confoundedShown) {
        confoundedShown = true;
        body.appendChild(TK.el("tr", { "class": "tk-hint-group" }, [TK.el("td", { colspan: "6", text: "Confounded with time — no stronger than when the occurrences happened; not suspects:" })]));
      }
      var unit = h.kind && h.kind !== "value" && h.unit ? " " + h.unit : "";
      var what = h.top_values ? h.top_values.map(function (v) { return v.value + " " + Math.round(100 * v.share) + "%"; }).join(", ")
        : (h.p5 != null ? "5–95%: " + TK.fmtNum(h.p5) + " – " + TK.fmtNum(h.p95) + unit : "—");
      var score = TK.el("td");
      if (h.score != null) { score.appendChild(TK.el("span", { "class": "tk-hint-bar", style: "width:" + Math.round(40 * h.score / maxScore) + "px" })); score.appendChild(document.createTextNode(h.score.toFixed(2))); }
      var item = TK.el("td", null, [h.label + " (" + h.type + ")"]);
      if (h.note) item.appendChild(TK.el("div", { "class": "tk-hint-note", text: h.note }));
      var cls = "tk-hint" + (h.confounded_with_time ? " tk-confounded" : "") + (h.kind ? " tk-kind-" + h.kind : "");
      body.appendChild(TK.el("tr", { "class": cls, "data-label": h.label }, [TK.el("td", { text: String(i + 1) }), item, TK.el("td", { "class": "tk-hint-kind", text: h.kind || "value" }),
        TK.el("td", { text: what, title: what }), score, TK.el("td", { text: h.raw_score != null ? h.raw_score.toFixed(2) : "—" })]));
    });
    table.appendChild(body);
    out.appendChild(TK.el("h2", { text: "Hints" }));
    out.appendChild(table);
  } else if (p.occurrences.length) out.appendChild(TK.el("div", { "class": "tk-note", text: "No context was recorded at the occurrences." }));
  TK.emit("problem", p);
};

// ---- In-browser evaluation, for definitions a report was not written with.

TK.findMethods = function (pattern) {
  var p = pattern.trim(), dotted = p.replace(/\//g, "."), out = [];
  TK.meta.methods.forEach(function (m, i) {
    var q = m.name, simple = q.slice(q.lastIndexOf(".") + 1);
    if (simple === p || q === dotted || (dotted.indexOf(".") >= 0 && q.endsWith("." + dotted)) || (q + " " + m.sig) === dotted) out.push(i);
  });
  return out;
};

// Intervals where one comparison holds on a context track, within the span.
TK.atomIntervals = function (track, op, raw, span) {
  var n = track.times.length, out = [], str = track.type === "string";
  var c = str ? raw.replace(/^["']|["']$/g, "") : Number(raw);
  if (!str && isNaN(c)) throw new Error("'" + raw + "' is not a number");
  var ops = str ? ["==", "!="] : (track.type === "float" || track.type === "double") ? ["<", ">"] : ["==", "!=", "<", ">", "<=", ">="];
  if (ops.indexOf(op) < 0) throw new Error(track.type + " items take " + ops.join(" ") + ", not " + op);
  function test(v) {
    switch (op) { case "==": return v === c || String(v) === c; case "!=": return !(v === c || String(v) === c);
      case "<": return v < c; case ">": return v > c; case "<=": return v <= c; default: return v >= c; }
  }
  function push(a, b) { if (b <= a) return; var l = out[out.length - 1]; if (l && l[1] >= a) l[1] = Math.max(l[1], b); else out.push([a, b]); }
  for (var i = 0; i < n; i++) {
    var a = track.times[i], v = track.values[i];
    if (track.type === "float" || track.type === "double") {
      if (i + 1 >= n) { if (test(v)) push(a, a + 1); break; }
      var b = track.times[i + 1], w = track.values[i + 1], ta = test(v), tb = test(w);
      if (ta && tb) push(a, b);
      else if (ta !== tb && w !== v) { var x = a + (c - v) / (w - v) * (b - a); if (ta) push(a, x); else push(x, b); }
    } else if (test(v)) push(a, i + 1 < n ? track.times[i + 1] : span[1] + 1);
  }
  return out;
};

TK.intersect = function (x, y) {
  var out = [], i = 0, j = 0;
  while (i < x.length && j < y.length) {
    var a = Math.max(x[i][0], y[j][0]), b = Math.min(x[i][1], y[j][1]);
    if (a < b) out.push([a, b]);
    if (x[i][1] < y[j][1]) i++; else j++;
  }
  return out;
};
TK.union = function (x, y) {
  var all = x.concat(y).sort(function (p, q) { return p[0] - q[0]; }), out = [];
  all.forEach(function (iv) { var l = out[out.length - 1]; if (l && l[1] >= iv[0]) l[1] = Math.max(l[1], iv[1]); else out.push([iv[0], iv[1]]); });
  return out;
};

// `label op value`, combined with `and` (binds tighter) and `or`.
TK.conditionIntervals = function (when, span) {
  var tracks = TK.meta.context;
  return when.split(/\s+or\s+/i).map(function (conj) {
    return conj.split(/\s+and\s+/i).map(function (atom) {
      var m = atom.match(/^\s*(.+?)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$/);
      if (!m) throw new Error("cannot read the condition '" + atom + "'; write: label op value");
      var track = tracks.filter(function (t) { return t.label === m[1]; })[0];
      if (!track) throw new Error("no context item is labelled '" + m[1] + "'");
      return TK.atomIntervals(track, m[2], m[3], span);
    }).reduce(TK.intersect);
  }).reduce(TK.union);
};

// The five most frequent values with their shares.
TK.topValues = function (vals) {
  var freq = new Map();
  vals.forEach(function (v) { freq.set(v, (freq.get(v) || 0) + 1); });
  return Array.from(freq.entries()).sort(function (a, b) { return b[1] - a[1]; }).slice(0, 5)
    .map(function (e) { return { value: String(e[0]), share: e[1] / vals.length }; });
};

// Hints at the given times, ranked by tracekit-analysis's rules (hints.js).
TK.hintsAt = function (times) { return TK.Hints.rank(TK.meta, times); };

TK.solveInBrowser = function (source, def) {
  var ids = TK.findMethods(def.method);
  var markers = def.kind === "brb" ? (TK.meta.markers || []).filter(function (m) { return m.name === def.method; }) : [];
  if (!ids.length && !markers.length) return { error: "no method " + (def.kind === "brb" ? "or marker " : "") + "matches '" + def.method + "'" };
  var want = new Set(ids), calls = [];
  source.threads.forEach(function (th, ti) {
    th.levels.forEach(function (l) {
      for (var i = 0; i < l.start.length; i++) if (want.has(l.method[i] & 0x7fffffff)) calls.push({ ts_ns: l.start[i], thread: ti });
    });
  });
  markers.forEach(function (m) { calls.push({ ts_ns: m.ts, thread: m.thread }); });
  calls.sort(function (a, b) { return a.ts_ns - b.ts_ns || a.thread - b.thread; });
  var intervals = [], inside = calls, outside = [];
  if (def.kind === "method" && def.when) {
    try { intervals = TK.conditionIntervals(def.when, TK.span); } catch (e) { return { error: e.message }; }
    inside = []; outside = [];
    var starts = intervals.map(function (iv) { return iv[0]; });
    calls.forEach(function (c) {
      var k = TK.upper(starts, c.ts_ns) - 1;
      (k >= 0 && c.ts_ns < intervals[k][1] ? inside : outside).push(c);
    });
  }
  var title = def.kind === "brb" ? "BRB (" + def.method + ")" : def.when ? def.method + " when " + def.when : def.method;
  var note = "Evaluated in the browser" + (source.summary.summarised ? " over the calls this summarised report draws individually." : ".");
  return { view: { def: def, title: title, occurrences: inside, intervals: intervals, calls_inside: def.when ? inside : [], calls_outside: outside, hints: TK.hintsAt(inside.map(function (c) { return c.ts_ns; })), note: note } };
};

// Measured energy inside and outside `intervals` (ns pairs), from the
// cumulative energy row and the power it integrates, under the same rule
// (exact, as the CLI's); null without power data.
TK.energyInOut = function (intervals) {
  var c = (TK.meta.counters || []).filter(function (x) { return x.derived && x.power && x.rule; })[0];
  if (!c || c.times.length < 2) return null;
  var t = c.times, cum = c.values, w = c.power, n = t.length;
  function at(x) {
    if (x <= t[0]) return 0;
    if (x >= t[n - 1]) return cum[n - 1];
    var i = TK.upper(t, x) - 1, dt = (x - t[i]) * 1e-9;
    if (c.rule === "left-hold") return cum[i] + w[i] * dt;
    if (c.rule === "right-hold") return cum[i] + w[i + 1] * dt;
    var wx = w[i] + (w[i + 1] - w[i]) * (x - t[i]) / (t[i + 1] - t[i]);
    return cum[i] + 0.5 * (w[i] + wx) * dt;
  }
  var inside = 0, insideNs = 0;
  intervals.forEach(function (iv) {
    var a = Math.max(iv[0], t[0]), b = Math.min(iv[1], t[n - 1]);
    if (b > a) { inside += at(b) - at(a); insideNs += b - a; }
  });
  var spanNs = t[n - 1] - t[0];
  return { inside: inside, insideS: insideNs * 1e-9, outside: cum[n - 1] - inside, outsideS: (spanNs - insideNs) * 1e-9 };
};

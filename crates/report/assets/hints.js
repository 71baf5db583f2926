// tracekit viewer: ranked context hints computed in the browser, for problem
// definitions a report was not written with. These are tracekit-analysis's
// rules (crates/analysis/src/hints, whose crate docs explain the method),
// repeated because a report has no server; the browser tests hold the two to
// the same numbers. Values (or a running total's rate, or the session time)
// at the occurrences are compared with the whole session (raw_score) and with
// the item at nearby times (score); items time alone explains are marked
// confounded with time.
"use strict";

TK.Hints = {
  SAMPLES: 4096,
  MIN_COUNTER_STEPS: 8,
  CONFOUND_MIN: 0.25,
  RATE_WINDOW_S: 5,
  TIME_LABEL: "Session time"
};

(function (H) {
  var isNum = function (v) { return typeof v === "number" && isFinite(v); };
  var continuous = function (type) { return type === "float" || type === "double"; };

  // The items hints look at: context tracks, then each counter no context
  // track names, the way a counter becomes a context item (whole-numbered
  // levels held, anything else interpolated).
  H.items = function (meta) {
    var out = [], seen = new Set();
    meta.context.forEach(function (c) {
      if (seen.has(c.label)) return;
      seen.add(c.label);
      var values = c.type === "float" ? c.values.map(function (v) { return v == null ? NaN : Math.fround(v); }) : c.values;
      out.push({ label: c.label, type: c.type, unit: c.unit, times: c.times, values: values, counterKind: null, wrapsAt: null });
    });
    // Derived rows (power from V·I, cumulative energy) are not in the
    // session the analysis ranks.
    (meta.counters || []).forEach(function (c) {
      if (!c.times.length || c.derived || seen.has(c.name)) return;
      seen.add(c.name);
      var kind = c.kind || "level";
      var whole = c.values.every(function (v) { return isNum(v) && v % 1 === 0 && Math.abs(v) < 9e15; });
      out.push({ label: c.name, type: kind === "level" && whole ? "long" : "double", unit: c.unit, times: c.times,
        values: c.values.map(function (v) { return v == null ? NaN : v; }), counterKind: kind, wrapsAt: c.wrapsAt == null ? null : c.wrapsAt });
    });
    return out;
  };

  // Value at t: held for int/long/string, interpolated for float/double.
  H.valueAt = function (it, t) {
    var ts = it.times, after = TK.upper(ts, t);
    if (after === 0) return undefined;
    var i = after - 1;
    if (!continuous(it.type) || ts[i] === t) return it.values[i];
    if (after >= ts.length) return undefined;
    var v0 = it.values[i], v1 = it.values[after];
    var v = v0 + (t - ts[i]) / (ts[after] - ts[i]) * (v1 - v0);
    return it.type === "float" ? Math.fround(v) : v;
  };

  function sampled(pieces, a, b, f) {
    if (b <= a) {
      var v0 = f(a);
      if (isNum(v0)) pieces.push({ start: a, end: a, raw: 1, value: v0 });
      return;
    }
    var span = b - a, k = H.SAMPLES;
    for (var i = 0; i < k; i++) {
      var v = f(a + Math.trunc(span * (i + 0.5) / k));
      if (isNum(v)) pieces.push({ start: a + Math.trunc(span * i / k), end: a + Math.trunc(span * (i + 1) / k), raw: 1, value: v });
    }
  }

  function valueSeries(it, times, end) {
    var cats = new Map(), id = function (s) { if (!cats.has(s)) cats.set(s, cats.size); return cats.get(s); };
    var str = it.type === "string", s = { at: [], values: [], pieces: [] }, raw = [];
    times.forEach(function (t) {
      var v = H.valueAt(it, t);
      if (v === undefined) return;
      raw.push(v);
      var x = str ? id(v) : v;
      if (str || isNum(x)) { s.at.push(t); s.values.push(x); }
    });
    var n = it.times.length;
    if (continuous(it.type)) {
      if (n) sampled(s.pieces, it.times[0], it.times[n - 1], function (at) { return H.valueAt(it, at); });
    } else {
      for (var i = 0; i < n; i++) {
        var stop = i + 1 < n ? it.times[i + 1] : end, v = str ? id(it.values[i]) : it.values[i];
        if (str || isNum(v)) s.pieces.push({ start: it.times[i], end: Math.max(stop, it.times[i]), raw: Math.max(stop - it.times[i], 0), value: v });
      }
    }
    return { series: s, raw: raw };
  }

  H.isCumulative = function (it) {
    if (it.counterKind === "cumulative") return true;
    if (it.type === "string") return false;
    var steps = 0;
    for (var i = 1; i < it.values.length; i++) {
      var a = it.values[i - 1], b = it.values[i];
      if (b < a || !isNum(b)) return false;
      if (b > a) steps++;
    }
    return steps >= H.MIN_COUNTER_STEPS;
  };

  // The running total with wraps (at wrapsAt) and resets undone.
  function unwrapped(it) {
    var total = 0, prev = null, values = [], step = !continuous(it.type);
    for (var i = 0; i < it.values.length; i++) {
      var v = isNum(it.values[i]) || it.values[i] === Infinity ? it.values[i] : 0;
      if (prev === null) total += v;
      else if (v >= prev) total += v - prev;
      else total += it.wrapsAt != null && it.wrapsAt > prev ? it.wrapsAt - prev + v : v;
      prev = v;
      values.push(step ? Math.trunc(total) : total);
    }
    return { label: it.label, type: step ? "long" : "double", times: it.times, values: values };
  }

  function rateSeries(total, times, windowNs) {
    var half = Math.max(Math.trunc(windowNs / 2), 1), n = total.times.length;
    var rate = function (at) {
      if (!n) return undefined;
      var a = Math.max(at - half, total.times[0]), b = Math.min(at + half, total.times[n - 1]);
      if (b - a < half) return undefined;
      var va = H.valueAt(total, a), vb = H.valueAt(total, b);
      if (va === undefined || vb === undefined) return undefined;
      return (vb - va) * 1e9 / (b - a);
    };
    var s = { at: [], values: [], pieces: [] };
    times.forEach(function (t) { var r = rate(t); if (isNum(r)) { s.at.push(t); s.values.push(r); } });
    if (n && total.times[n - 1] - total.times[0] >= half) sampled(s.pieces, total.times[0], total.times[n - 1], rate);
    return s;
  }

  function byValue(x, y) { return x[0] - y[0]; }

  H.weightedKs = function (a, b) {
    var wa = 0, wb = 0;
    a.forEach(function (x) { wa += x[1]; });
    b.forEach(function (x) { wb += x[1]; });
    if (wa <= 0 || wb <= 0) return 0;
    a.sort(byValue); b.sort(byValue);
    var i = 0, j = 0, ca = 0, cb = 0, d = 0;
    while (i < a.length || j < b.length) {
      var x = i < a.length && j < b.length ? Math.min(a[i][0], b[j][0]) : i < a.length ? a[i][0] : b[j][0];
      while (i < a.length && a[i][0] <= x) { ca += a[i][1]; i++; }
      while (j < b.length && b[j][0] <= x) { cb += b[j][1]; j++; }
      d = Math.max(d, Math.abs(ca / wa - cb / wb));
    }
    return Math.min(Math.max(d, 0), 1);
  };

  function totalVariation(a, b) {
    var wa = 0, wb = 0, shares = new Map();
    a.forEach(function (x) { wa += x[1]; var s = shares.get(x[0]) || [0, 0]; s[0] += x[1]; shares.set(x[0], s); });
    b.forEach(function (x) { wb += x[1]; var s = shares.get(x[0]) || [0, 0]; s[1] += x[1]; shares.set(x[0], s); });
    if (wa <= 0 || wb <= 0) return 0;
    var keys = Array.from(shares.keys()).sort(function (x, y) { return x - y; }), tv = 0;
    keys.forEach(function (k) { var s = shares.get(k); tv += Math.abs(s[0] / wa - s[1] / wb); });
    return Math.min(Math.max(tv / 2, 0), 1);
  }

  function distance(ordered, a, b) { return ordered ? H.weightedKs(a, b) : totalVariation(a, b); }

  // A density over time as the breakpoints of its integral.
  function density(steps) {
    steps.sort(function (x, y) { return x[0] - y[0]; });
    var at = [], integral = [], slope = [], acc = 0, s = 0, last = -Infinity;
    steps.forEach(function (st) {
      if (st[0] > last && isFinite(last)) acc += s * (st[0] - last);
      s += st[1]; last = st[0];
      at.push(st[0]); integral.push(acc); slope.push(Math.max(s, 0));
    });
    var upTo = function (t) { var k = TK.upper(at, t); return k === 0 ? 0 : integral[k - 1] + slope[k - 1] * (t - at[k - 1]); };
    return { upTo: upTo, weight: function (p) { return Math.max(upTo(p.end) - upTo(p.start), 0); } };
  }

  // Raw, time-adjusted and time-explained scores (one session).
  function scores(s, ordered, half) {
    var occ = function () { return s.values.map(function (v) { return [v, 1]; }); };
    var whole = function () { return s.pieces.map(function (p) { return [p.value, p.raw]; }); };
    var raw = distance(ordered, occ(), whole());
    if (!s.values.length) return { raw: raw, adjusted: 0, fromTime: 0 };
    var n = s.values.length, steps = [];
    var dom = s.pieces.length ? [s.pieces[0].start, s.pieces[s.pieces.length - 1].end] : null;
    s.at.forEach(function (t) {
      var a = t - half, b = t + half, cover = dom ? Math.max(Math.min(b, dom[1]) - Math.max(a, dom[0]), 0) : 0;
      if (cover <= 0) return;
      var c = 1 / (n * cover);
      steps.push([a, c]); steps.push([b, -c]);
    });
    var d = density(steps), near = [];
    s.pieces.forEach(function (p) { var w = d.weight(p); if (w > 0) near.push([p.value, w]); });
    return { raw: raw, adjusted: distance(ordered, occ(), near.slice()), fromTime: distance(ordered, near, whole()) };
  }

  function ksAgainst(times, cdf) {
    times.sort(function (x, y) { return x - y; });
    var m = times.length, d = 0, i = 0;
    while (i < m) {
      var j = i;
      while (j < m && times[j] === times[i]) j++;
      var g = cdf(times[i]);
      d = Math.max(d, Math.abs(i / m - g), Math.abs(j / m - g));
      i = j;
    }
    return Math.min(Math.max(d, 0), 1);
  }

  // Time's association beyond an item: occurrence times against the times
  // the item had values like its value at each occurrence.
  function timeBeyond(s, ordered, q) {
    var pieces = s.pieces.filter(function (p) { return p.end > p.start; });
    if (!pieces.length || !s.values.length) return null;
    var byV = pieces.map(function (p) { return [p.value, p.end - p.start]; }).sort(byValue), values = [], held = [];
    byV.forEach(function (x) {
      if (values.length && values[values.length - 1] === x[0]) held[held.length - 1] += x[1];
      else { values.push(x[0]); held.push(x[1]); }
    });
    var total = 0, below = [], acc = 0;
    held.forEach(function (d) { total += d; });
    held.forEach(function (d) { below.push(acc / total); acc += d; });
    below.push(1);
    var m = values.length, prefix = [0];
    for (var k = 0; k < m; k++) prefix.push(prefix[k] + held[k]);
    var ranges = s.values.map(function (x) {
      var at = TK.lower(values, x), exact = values[at] === x;
      if (!ordered) return exact ? [at, at] : null;
      var lo = below[at] - q, hi = (exact ? below[at + 1] : below[at]) + q;
      var a = TK.upper(below, lo, 1) - 1, b = TK.lower(below, hi, 0, m);
      a = Math.min(a, at); b = Math.max(b, at + (exact ? 1 : 0));
      return b > a ? [a, b - 1] : null;
    });
    var used = [];
    ranges.forEach(function (r) { if (r) { var d = prefix[r[1] + 1] - prefix[r[0]]; if (d > 0) used.push([r[0], r[1], d]); } });
    if (!used.length) return null;
    var n = used.length, diff = new Array(m + 1).fill(0), rate = [], r = 0;
    used.forEach(function (u) { diff[u[0]] += 1 / (n * u[2]); diff[u[1] + 1] -= 1 / (n * u[2]); });
    for (k = 0; k < m; k++) { r += diff[k]; rate.push(Math.max(r, 0)); }
    var steps = [];
    pieces.forEach(function (p) {
      var w = rate[TK.lower(values, p.value)];
      if (w > 0) { steps.push([p.start, w]); steps.push([p.end, -w]); }
    });
    var d = density(steps);
    var times = s.at.filter(function (_, i) { return ranges[i]; });
    return ksAgainst(times, d.upTo);
  }

  function percentile(sorted, p) {
    if (!sorted.length) return null;
    var pos = p * (sorted.length - 1), lo = Math.floor(pos), hi = Math.ceil(pos);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  }
  function spread(h, vals) {
    var v = vals.filter(isNum).sort(function (a, b) { return a - b; });
    h.p5 = percentile(v, 0.05); h.p95 = percentile(v, 0.95);
  }
  function fix(x, d) { return x.toFixed(d); }

  function finish(h, sc) {
    h.score = sc.adjusted; h.raw_score = sc.raw; h.expected_from_time = sc.fromTime;
    h.confounded_with_time = sc.raw >= H.CONFOUND_MIN && sc.fromTime >= H.CONFOUND_MIN && sc.fromTime > sc.adjusted;
    if (h.confounded_with_time) {
      var why = "confounded with time: its values at the occurrences are what their times alone predict (raw " + fix(sc.raw, 2) + ", time alone " + fix(sc.fromTime, 2) + ")";
      h.note = h.note ? why + "; " + h.note : why;
    }
  }

  // Ranked hints at the occurrence times (ns) of one session.
  H.rank = function (meta, times, opts) {
    opts = opts || {};
    var end = meta.horizon != null ? meta.horizon : meta.span[1] + 1;
    var windowNs = opts.timeWindowS > 0 ? Math.trunc(opts.timeWindowS * 1e9) : Math.max(Math.trunc(end / 4), 1);
    var half = Math.max(Math.trunc(windowNs / 2), 1), rateS = opts.rateWindowS > 0 ? opts.rateWindowS : H.RATE_WINDOW_S;
    var computed = H.items(meta).map(function (it) {
      var h = { label: it.label, type: it.type, score: 0, raw_score: 0, kind: "value", confounded_with_time: false,
        expected_from_time: 0, unit: it.unit == null ? null : it.unit, note: null, top_values: null, p5: null, p95: null, defined: 0 };
      var s, ordered = it.type !== "string";
      if (H.isCumulative(it)) {
        s = rateSeries(unwrapped(it), times, Math.trunc(rateS * 1e9));
        var perS = it.unit == null ? "per s" : it.unit + "/s";
        h.kind = "rate"; h.unit = perS; h.defined = s.values.length; spread(h, s.values);
        h.note = "a running total, compared by its rate (" + perS + " over " + String(Number(rateS.toFixed(3))) + " s windows), not its value";
        ordered = true;
      } else {
        var vs = valueSeries(it, times, end);
        s = vs.series; h.defined = vs.raw.length;
        if (continuous(it.type)) spread(h, vs.raw);
        else h.top_values = TK.topValues(vs.raw);
      }
      finish(h, scores(s, ordered, half));
      return { h: h, s: s, ordered: ordered };
    });
    var out = computed.map(function (c) { return c.h; });
    if (out.length) {
      var share = Math.min(Math.max(half / Math.max(end, 1), 0.01), 0.5), best = null;
      computed.forEach(function (c) {
        if (c.h.confounded_with_time || c.h.score < H.CONFOUND_MIN) return;
        var d = timeBeyond(c.s, c.ordered, share);
        if (d !== null && (!best || d < best[0] || (d === best[0] && c.h.label < best[1]))) best = [d, c.h.label];
      });
      out.push(H.timeHint(times, end, best));
    }
    out.sort(function (a, b) {
      if (a.confounded_with_time !== b.confounded_with_time) return a.confounded_with_time ? 1 : -1;
      if (a.score !== b.score) return b.score - a.score;
      return a.label < b.label ? -1 : a.label > b.label ? 1 : 0;
    });
    return out;
  };

  H.timeHint = function (times, end, best) {
    var secs = times.map(function (t) { return t / 1e9; }), e = Math.max(end, 1) / 1e9;
    var raw = secs.length ? ksAgainst(secs.slice(), function (t) { return Math.min(Math.max(t, 0), e) / e; }) : 0;
    var beyond = best && best[0] < raw ? best : null;
    var note = "s since the session's start";
    if (secs.length) {
      note += ": the occurrences fall at " + fix(Math.min.apply(null, secs), 1) + "–" + fix(Math.max.apply(null, secs), 1) + " s of a " + fix(end / 1e9, 1) + " s session";
    }
    if (beyond) note += "; beyond " + beyond[1] + ", the item that best explains when they happen, time scores " + fix(beyond[0], 2);
    var h = { label: H.TIME_LABEL, type: "double", score: beyond ? beyond[0] : raw, raw_score: raw, kind: "time", confounded_with_time: false,
      expected_from_time: raw, unit: "s", note: note, top_values: null, p5: null, p95: null, defined: secs.length };
    spread(h, secs);
    return h;
  };
})(TK.Hints);

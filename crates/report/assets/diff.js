// tracekit diff: the differential flame graph page. Frames are drawn from
// the root down; a frame's width is its value in B (or A), its colour the
// change of its own (exclusive) value: red grew, blue shrank.
"use strict";
(function () {
  var D = JSON.parse(document.getElementById("td-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var RH = 17;
  var nodes = D.nodes.map(function (n, i) {
    return { i: i, name: n[0], parent: n[1], selfA: n[2], selfB: n[3], totalA: n[4], totalB: n[5], verdict: n[6], kids: [] };
  });
  var roots = [];
  nodes.forEach(function (n) { if (n.parent === null) roots.push(n); else nodes[n.parent].kids.push(n); });
  function byName(a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; }
  roots.sort(byName);
  nodes.forEach(function (n) { n.kids.sort(byName); });

  function fmt(v, kind, normalized) {
    if (v === null || v === undefined) return "-";
    if (normalized) return (v * 100).toFixed(3) + "%";
    var a = Math.abs(v);
    if (kind === "time") {
      if (a >= 1e9) return (v / 1e9).toPrecision(4) + " s";
      if (a >= 1e6) return (v / 1e6).toPrecision(4) + " ms";
      if (a >= 1e3) return (v / 1e3).toPrecision(4) + " µs";
      return v.toFixed(0) + " ns";
    }
    if (kind === "energy") {
      if (a >= 1) return v.toPrecision(4) + " J";
      if (a >= 1e-3) return (v * 1e3).toPrecision(4) + " mJ";
      return (v * 1e6).toPrecision(4) + " µJ";
    }
    return Number.isInteger(v) ? String(v) : v.toFixed(1);
  }
  function pct(c) {
    if (c === null || c === undefined) return "±inf";
    return (c >= 0 ? "+" : "") + (c * 100).toFixed(1) + "%";
  }
  function rel(a, b) { return a ? (b - a) / Math.abs(a) : (b ? null : 0); }

  // Colour of a frame from the change of its own (exclusive) value, as a
  // share of the frame's width: full saturation when its own value moved
  // by 20% of its total or more, so a small frame's noise stays pale. A
  // frame whose row the comparison judged regressed or improved is at
  // least 70% saturated.
  var FULL = 0.2;
  function colour(n) {
    var d = n.selfB - n.selfA, w = Math.max(n.totalA, n.totalB);
    var t = w > 0 ? Math.min(1, Math.abs(d) / (FULL * w)) : 0;
    if (n.verdict === "regressed" || n.verdict === "improved") t = Math.max(t, 0.7);
    var base = 232, far = 51, c = Math.round(base - (base - far) * t);
    if (d > 0) return { r: 255, g: c, b: c };
    if (d < 0) return { r: c, g: c, b: 255 };
    return { r: base, g: base, b: base };
  }

  // Header.
  $("td-title").textContent = D.title;
  $("td-facts").textContent = D.runsA + " run(s) of A vs " + D.runsB + " of B · rows by " + D.by +
    " · widths and colours: " + D.flameMetric + (D.normalized ? " (share of each run's total)" : "") +
    ", mean per run · " + Math.round(D.settings.confidence * 100) + "% intervals from " + D.settings.resamples +
    " whole-run resamples";
  var s = D.summary;
  $("td-summary").textContent = s.regressed + " regressed, " + s.improved + " improved, " + s.unchanged + " unchanged, " +
    s.inconclusive + " inconclusive; " + s.only_in_a + " only in A, " + s.only_in_b + " only in B";
  D.warnings.forEach(function (w) { var e = document.createElement("div"); e.textContent = w; $("td-warnings").appendChild(e); });

  var state = { mode: "after", focus: null, boxes: [] };
  var tw = function (n) { return state.mode === "after" ? n.totalB : n.totalA; };
  $("td-legend-text").textContent = "saturation: change of the frame's own value, full at 20% of the frame's width; " +
    "outlined: the comparison judged the row regressed or improved";
  function setButton() {
    $("td-widths").textContent = state.mode === "after" ? "widths: B (after) — show A" : "widths: A (before) — show B";
  }
  $("td-widths").addEventListener("click", function () {
    state.mode = state.mode === "after" ? "before" : "after"; state.focus = null; setButton(); render();
  });
  setButton();

  function render() {
    var c = $("td-flame"), W = Math.max(300, $("td-flame-wrap").clientWidth - 2), boxes = [], maxDepth = 0;
    function place(list, x0, depth, scale) {
      var x = x0;
      list.forEach(function (n) {
        var w = tw(n) * scale;
        if (w >= 0.3) {
          boxes.push({ node: n, name: n.name, x: x, w: w, d: depth, verdict: n.verdict, colour: colour(n) });
          if (depth > maxDepth) maxDepth = depth;
          place(n.kids, x, depth + 1, scale);
        }
        x += w;
      });
    }
    if (state.focus && tw(state.focus) > 0) {
      var f = state.focus;
      boxes.push({ node: f, name: f.name, x: 0, w: W, d: 0, verdict: f.verdict, colour: colour(f) });
      place(f.kids, 0, 1, W / tw(f));
    } else {
      state.focus = null;
      var total = roots.reduce(function (t, n) { return t + tw(n); }, 0);
      place(roots, 0, 0, total ? W / total : 0);
    }
    var H = (maxDepth + 1) * RH + 2, dpr = window.devicePixelRatio || 1;
    c.width = Math.round(W * dpr); c.height = Math.round(H * dpr);
    c.style.width = W + "px"; c.style.height = H + "px";
    var ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif"; ctx.textBaseline = "middle";
    boxes.forEach(function (b) {
      var y = b.d * RH, k = b.colour;
      ctx.fillStyle = "rgb(" + k.r + "," + k.g + "," + k.b + ")";
      ctx.fillRect(b.x, y, Math.max(0.5, b.w - 0.5), RH - 1);
      if (b.verdict === "regressed" || b.verdict === "improved") {
        ctx.strokeStyle = "#1d2330"; ctx.lineWidth = 1.5;
        ctx.strokeRect(b.x + 0.75, y + 0.75, Math.max(0.5, b.w - 2), RH - 2.5);
      }
      if (b.w > 30) {
        ctx.save(); ctx.beginPath(); ctx.rect(b.x, y, b.w - 2, RH); ctx.clip();
        ctx.fillStyle = "#1d2330"; ctx.fillText(b.name, b.x + 3, y + RH / 2);
        ctx.restore();
      }
    });
    state.boxes = boxes;
  }

  function hit(e) {
    var r = $("td-flame").getBoundingClientRect(), mx = e.clientX - r.left, d = Math.floor((e.clientY - r.top) / RH);
    return state.boxes.filter(function (b) { return b.d === d && b.x <= mx && mx < b.x + b.w; })[0];
  }
  $("td-flame").addEventListener("mousemove", function (e) {
    var b = hit(e), tip = $("td-tip");
    if (!b) { tip.hidden = true; return; }
    var n = b.node, k = D.flameKind, z = D.normalized;
    tip.textContent = n.name + "\n" +
      "own:   A " + fmt(n.selfA, k, z) + "  B " + fmt(n.selfB, k, z) + "  " + pct(rel(n.selfA, n.selfB)) + "\n" +
      "total: A " + fmt(n.totalA, k, z) + "  B " + fmt(n.totalB, k, z) + "  " + pct(rel(n.totalA, n.totalB)) +
      (n.verdict ? "\nverdict: " + n.verdict : "") + (n === state.focus ? "\n(click: back to all)" : "\n(click: focus)");
    tip.hidden = false; tip.style.left = (e.clientX + 12) + "px"; tip.style.top = (e.clientY + 12) + "px";
  });
  $("td-flame").addEventListener("mouseleave", function () { $("td-tip").hidden = true; });
  $("td-flame").addEventListener("click", function (e) {
    var b = hit(e);
    if (!b) return;
    state.focus = b.node === state.focus ? null : b.node;
    render();
  });
  window.addEventListener("resize", render);

  // The rows table.
  (function table() {
    var t = $("td-rows"), head = document.createElement("tr");
    ["verdict", "metric", "change", Math.round(D.settings.confidence * 100) + "% CI", "q", "median A", "median B", "delta", "name"]
      .forEach(function (h, i) { var th = document.createElement("th"); th.textContent = h; if (i === 8) th.className = "td-name"; head.appendChild(th); });
    t.appendChild(head);
    D.rows.forEach(function (r) {
      var tr = document.createElement("tr"), z = D.settings.normalized;
      tr.setAttribute("data-verdict", r.verdict);
      [r.verdict, r.metric, pct(r.change), r.exact ? "exact" : "[" + pct(r.ciLow) + ", " + pct(r.ciHigh) + "]",
        r.q === null ? "-" : (r.q < 0.001 ? r.q.toExponential(1) : r.q.toFixed(3)),
        fmt(r.medianA, r.kind, z), fmt(r.medianB, r.kind, z), (r.delta > 0 ? "+" : "") + fmt(r.delta, r.kind, z), r.key.join(" → ")]
        .forEach(function (v, i) { var td = document.createElement("td"); td.textContent = v; if (i === 8) td.className = "td-name"; tr.appendChild(td); });
      t.appendChild(tr);
    });
  })();

  render();
  window.TKDIFF = { state: state, render: render, nodes: nodes };
})();

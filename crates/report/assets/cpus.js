// CPU rows: which thread each CPU ran (scheduling slices from systrace or
// Perfetto), one colour per thread, drawn above the thread rows.
"use strict";

TK.threadColor = function (i) {
  var name = (TK.meta.threads[i] || {}).name || String(i), h = 2166136261;
  for (var k = 0; k < name.length; k++) { h ^= name.charCodeAt(k); h = Math.imul(h, 16777619); }
  h >>>= 0;
  return "hsl(" + (h % 360) + ",55%," + (55 + (h >> 11) % 20) + "%)";
};

// The index of the slice of `c` running at time `t`, or -1.
TK.cpuSliceAt = function (c, t, tol) {
  var i = TK.upper(c.ts, t + tol) - 1;
  for (var k = i; k >= 0 && k > i - 4; k--) if (c.ts[k] - tol <= t && t <= c.ts[k] + c.dur[k] + tol) return k;
  return -1;
};

TK.Timeline.prototype.drawCpu = function (ctx, row) {
  var c = row.cpu, v = TK.state.view, n = c.ts.length;
  if (!n) return;
  var i0 = Math.max(0, TK.upper(c.ts, v[0]) - 1), lastEnd = -1;
  var y = row.top + 3, h = row.height - 6;
  for (var i = i0; i < n && c.ts[i] <= v[1]; i++) {
    var a = this.x(c.ts[i]), b = this.x(c.ts[i] + c.dur[i]);
    if (b < 0) continue;
    // Slices narrower than a pixel that start inside the last one drawn merge into it.
    if (b - a < 1 && a < lastEnd) continue;
    ctx.fillStyle = TK.threadColor(c.thread[i]);
    ctx.fillRect(a, y, Math.max(1, b - a), h);
    lastEnd = Math.max(a + 1, b);
  }
};

TK.cpuTooltip = function (c, i, esc) {
  var th = TK.meta.threads[c.thread[i]] || { name: "thread " + c.thread[i], tid: "?" };
  return "<b>CPU " + c.cpu + ": " + esc(th.name) + "</b><table>" +
    "<tr><td class=tk-k>tid</td><td>" + th.tid + "</td></tr>" +
    "<tr><td class=tk-k>ran for</td><td>" + TK.fmtDur(c.dur[i]) + "</td></tr>" +
    "<tr><td class=tk-k>from</td><td>" + TK.fmtTime(c.ts[i]) + "</td></tr>" +
    (c.state[i] ? "<tr><td class=tk-k>left as</td><td>" + esc(c.state[i]) + "</td></tr>" : "") + "</table>";
};

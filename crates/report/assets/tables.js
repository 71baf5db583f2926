// tracekit viewer: profile table (Traceview's columns), call tree and flame
// graph, for the whole session, the selected interval and/or where the
// problem's condition holds.
"use strict";

// Same rules as the Rust `interval_profile` (crates/analysis/src/window_profile.rs);
// energy (J per call, when charged) follows CPU time's rules.
TK.intervalProfile = function (threads, intervals) {
  var rows = new Map(), tree = [], index = new Map(), totalReal = 0, totalCpu = 0, totalEnergy = 0, hasEnergy = false;
  threads.forEach(function (th, ti) {
    var prevNodes = null;
    th.levels.forEach(function (l, d) {
      var nodes = new Uint32Array(l.start.length).fill(0xffffffff), hasCpu = !!l.cpuDur, hasE = !!l.energy;
      if (hasE) hasEnergy = true;
      intervals.forEach(function (iv, k) {
        var a = iv[0], b = iv[1];
        for (var i = TK.upper(l.end, a); i < l.start.length && l.start[i] < b; i++) {
          var s = l.start[i], e = l.end[i], inside = Math.min(e, b) - Math.max(s, a), wall = e - s;
          var cpu = hasCpu ? l.cpuDur[i] * (wall > 0 ? inside / wall : 1) : 0;
          var en = hasE ? l.energy[i] * (wall > 0 ? inside / wall : 1) : 0;
          var count = s >= a ? 1 : 0;
          var m = l.method[i] & 0x7fffffff, rec = (l.method[i] & 0x80000000) !== 0;
          var row = rows.get(m);
          if (!row) { row = { method: m, calls: 0, recursive_calls: 0, incl_real: 0, excl_real: 0, incl_cpu: 0, excl_cpu: 0, incl_energy: 0, excl_energy: 0 }; rows.set(m, row); }
          row.calls += count;
          if (rec) row.recursive_calls += count;
          else { row.incl_real += inside; row.incl_cpu += cpu; row.incl_energy += en; }
          row.excl_real += inside; row.excl_cpu += cpu; row.excl_energy += en;
          var parentNode = null;
          if (d === 0) { totalReal += inside; totalCpu += cpu; totalEnergy += en; }
          else {
            var p = l.parent[i], pl = th.levels[d - 1], prow = rows.get(pl.method[p] & 0x7fffffff);
            if (prow) { prow.excl_real -= inside; prow.excl_cpu -= cpu; prow.excl_energy -= en; }
            parentNode = prevNodes[p];
            if (parentNode === 0xffffffff) parentNode = null;
          }
          var key = ti + ":" + (parentNode === null ? -1 : parentNode) + ":" + m, node = index.get(key);
          if (node === undefined) {
            node = tree.length; index.set(key, node);
            tree.push({ parent: parentNode, thread: ti, method: m, calls: 0, incl_real: 0, excl_real: 0, incl_cpu: 0, incl_energy: 0 });
          }
          var n = tree[node];
          n.calls += count; n.incl_real += inside; n.excl_real += inside; n.incl_cpu += cpu; n.incl_energy += en;
          if (parentNode !== null) tree[parentNode].excl_real -= inside;
          nodes[i] = node;
        }
      });
      prevNodes = nodes;
    });
  });
  var out = Array.from(rows.values());
  out.sort(function (x, y) { return y.incl_real - x.incl_real || x.method - y.method; });
  return { total_real: totalReal, total_cpu: totalCpu, total_energy: totalEnergy, has_energy: hasEnergy, rows: out, tree: tree, tree_dropped: 0 };
};

TK.Tables = function (source) {
  var self = this;
  this.source = source;
  this.sort = { key: "incl_real", desc: true };
  this.expanded = new Set();
  this.tab = "profile";
  document.querySelectorAll("#tk-tabs button").forEach(function (b) {
    b.addEventListener("click", function () { self.showTab(b.getAttribute("data-tab")); });
  });
  TK.$("tk-filter").addEventListener("input", function () { self.renderProfile(); });
  TK.$("tk-conditioned").addEventListener("change", function (e) { TK.state.conditioned = e.target.checked; self.refresh(); });
  TK.on("selection", function () { self.refresh(); });
  TK.on("problem", function (p) {
    var box = TK.$("tk-conditioned");
    box.disabled = !(p && p.intervals.length);
    if (box.disabled) { box.checked = false; TK.state.conditioned = false; }
    self.refresh();
  });
  window.addEventListener("resize", function () { if (self.tab === "flame") self.renderFlame(); });
  this.refresh();
};

TK.Tables.prototype.showTab = function (tab) {
  this.tab = tab;
  document.querySelectorAll("#tk-tabs button").forEach(function (b) { b.setAttribute("aria-selected", String(b.getAttribute("data-tab") === tab)); });
  ["profile", "calltree", "flame"].forEach(function (t) { TK.$("tk-tab-" + t).hidden = t !== tab; });
  this.render();
};

TK.Tables.prototype.refresh = function () {
  var self = this, iv = TK.tableIntervals(), scope = "whole session";
  if (TK.state.selection) scope = "selection " + TK.fmtTime(TK.state.selection[0]) + " – " + TK.fmtTime(TK.state.selection[1]);
  if (TK.state.conditioned && TK.state.problem) scope += (TK.state.selection ? ", " : "; ") + "where " + TK.state.problem.def.when + " holds";
  TK.$("tk-scope").textContent = "Scope: " + scope;
  var ticket = this.ticket = (this.ticket || 0) + 1;
  this.source.profile(iv, function (err, prof) {
    if (ticket !== self.ticket) return;
    if (err) { TK.$("tk-profile").textContent = "Profile unavailable: " + err; return; }
    self.prof = prof;
    self.render();
  });
};

TK.Tables.prototype.render = function () {
  if (!this.prof) return;
  if (this.tab === "profile") this.renderProfile();
  else if (this.tab === "calltree") this.renderTree();
  else this.renderFlame();
};

TK.PROFILE_COLUMNS = [
  { key: "name", title: "Name" },
  { key: "incl_cpu_pct", title: "Incl Cpu Time %", cpu: true },
  { key: "incl_cpu", title: "Incl Cpu Time", cpu: true, dur: true },
  { key: "excl_cpu_pct", title: "Excl Cpu Time %", cpu: true },
  { key: "excl_cpu", title: "Excl Cpu Time", cpu: true, dur: true },
  { key: "incl_real_pct", title: "Incl Real Time %" },
  { key: "incl_real", title: "Incl Real Time", dur: true },
  { key: "excl_real_pct", title: "Excl Real Time %" },
  { key: "excl_real", title: "Excl Real Time", dur: true },
  { key: "calls_total", title: "Calls+Recur Calls/Total" },
  { key: "cpu_per_call", title: "Cpu Time/Call", cpu: true, dur: true },
  { key: "real_per_call", title: "Real Time/Call", dur: true },
  { key: "incl_energy_pct", title: "Incl Energy %", energy: true },
  { key: "incl_energy", title: "Incl Energy", energy: true, joules: true },
  { key: "excl_energy_pct", title: "Excl Energy %", energy: true },
  { key: "excl_energy", title: "Excl Energy", energy: true, joules: true }
];

// Formats joules with three significant digits.
TK.fmtJ = function (j) {
  var a = Math.abs(j);
  if (a >= 1) return j.toPrecision(4) + " J";
  if (a >= 1e-3) return (j * 1e3).toPrecision(4) + " mJ";
  return (j * 1e6).toPrecision(4) + " µJ";
};

TK.Tables.prototype.renderProfile = function () {
  var self = this, prof = this.prof, hasCpu = TK.meta.hasCpu, filter = TK.$("tk-filter").value.toLowerCase();
  var rows = prof.rows.map(function (r) {
    var calls = r.calls;
    return {
      method: r.method, name: TK.methodName(r.method),
      incl_cpu: r.incl_cpu, excl_cpu: r.excl_cpu, incl_real: r.incl_real, excl_real: r.excl_real,
      incl_cpu_pct: prof.total_cpu ? 100 * r.incl_cpu / prof.total_cpu : 0, excl_cpu_pct: prof.total_cpu ? 100 * r.excl_cpu / prof.total_cpu : 0,
      incl_real_pct: prof.total_real ? 100 * r.incl_real / prof.total_real : 0, excl_real_pct: prof.total_real ? 100 * r.excl_real / prof.total_real : 0,
      incl_energy: r.incl_energy || 0, excl_energy: r.excl_energy || 0,
      incl_energy_pct: prof.total_energy ? 100 * (r.incl_energy || 0) / prof.total_energy : 0, excl_energy_pct: prof.total_energy ? 100 * (r.excl_energy || 0) / prof.total_energy : 0,
      calls_total: calls, calls: r.calls - r.recursive_calls, rec: r.recursive_calls,
      cpu_per_call: calls ? r.incl_cpu / calls : 0, real_per_call: calls ? r.incl_real / calls : 0
    };
  }).filter(function (r) { return !filter || r.name.toLowerCase().indexOf(filter) >= 0; });
  var key = this.sort.key, dir = this.sort.desc ? -1 : 1;
  rows.sort(function (a, b) { return (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) * dir; });
  var table = TK.el("table", { "class": "tk-table", id: "tk-profile-table" });
  var head = TK.el("tr"), columns = TK.PROFILE_COLUMNS.filter(function (c) { return !c.energy || TK.meta.hasEnergy; });
  columns.forEach(function (c) {
    var th = TK.el("th", { "data-key": c.key, text: c.title, scope: "col" });
    if (c.key === key) th.setAttribute("aria-sort", self.sort.desc ? "descending" : "ascending");
    th.addEventListener("click", function () {
      if (self.sort.key === c.key) self.sort.desc = !self.sort.desc;
      else { self.sort.key = c.key; self.sort.desc = c.key !== "name"; }
      self.renderProfile();
    });
    head.appendChild(th);
  });
  table.appendChild(TK.el("thead", null, [head]));
  var body = TK.el("tbody"), limit = Math.min(rows.length, 400);
  for (var i = 0; i < limit; i++) {
    var r = rows[i], tr = TK.el("tr", { "data-method": String(r.method) });
    if (TK.state.highlight === r.method) tr.className = "tk-selected";
    tr.addEventListener("click", (function (m) {
      return function () { TK.state.highlight = TK.state.highlight === m ? null : m; TK.emit("highlight", TK.state.highlight); self.renderProfile(); };
    })(r.method));
    columns.forEach(function (c) {
      var td;
      if (c.key === "name") { td = TK.el("td", { title: r.name }, [TK.el("span", { "class": "tk-swatch", style: "background:" + TK.color(r.method) }), r.name]); }
      else if (c.cpu && !hasCpu) td = TK.el("td", { text: "—" });
      else if (c.key === "calls_total") td = TK.el("td", { text: r.calls + "+" + r.rec });
      else if (c.dur) td = TK.el("td", { text: TK.fmtDur(r[c.key]) });
      else if (c.joules) td = TK.el("td", { text: TK.fmtJ(r[c.key]) });
      else td = TK.el("td", { text: r[c.key].toFixed(1) + "%" });
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  table.appendChild(body);
  var box = TK.$("tk-profile");
  box.textContent = "";
  box.appendChild(table);
  if (rows.length > limit) box.appendChild(TK.el("div", { "class": "tk-note", text: (rows.length - limit) + " more methods; use the filter." }));
  if (!rows.length) box.appendChild(TK.el("div", { "class": "tk-note", text: "No call runs in this scope." }));
};

TK.Tables.prototype.children = function () {
  if (this.childrenOf && this.childrenOf.prof === this.prof) return this.childrenOf.map;
  var map = new Map();
  this.prof.tree.forEach(function (n, i) {
    var k = n.parent === null || n.parent === undefined ? "t" + n.thread : n.parent;
    if (!map.has(k)) map.set(k, []);
    map.get(k).push(i);
  });
  var tree = this.prof.tree;
  map.forEach(function (list) { list.sort(function (a, b) { return tree[b].incl_real - tree[a].incl_real; }); });
  this.childrenOf = { prof: this.prof, map: map };
  return map;
};

TK.Tables.prototype.renderTree = function () {
  var self = this, tree = this.prof.tree, kids = this.children(), total = this.prof.total_real || 1;
  var table = TK.el("table", { "class": "tk-table", id: "tk-calltree-table" });
  // Sortable like the profile: siblings are ordered by the chosen column.
  var sort = this.treeSort = this.treeSort || { key: "incl_real", desc: true };
  var cols = [["name", "Name"], ["incl_real", "Incl Real Time"], ["incl_real", "Incl %"], ["excl_real", "Excl Real Time"], ["incl_cpu", "Incl Cpu Time"], ["calls", "Calls"]];
  if (TK.meta.hasEnergy) cols.push(["incl_energy", "Incl Energy"]);
  table.appendChild(TK.el("thead", null, [TK.el("tr", null, cols.map(function (c, ci) {
    var th = TK.el("th", { text: c[1], "data-key": c[0] });
    if (c[0] === sort.key && ci !== 2) th.setAttribute("aria-sort", sort.desc ? "descending" : "ascending");
    th.addEventListener("click", function () {
      if (sort.key === c[0]) sort.desc = !sort.desc; else { sort.key = c[0]; sort.desc = c[0] !== "name"; }
      self.renderTree();
    });
    return th;
  }))]));
  function value(i) { var n = tree[i]; return sort.key === "name" ? TK.methodName(n.method) : n[sort.key]; }
  function ordered(list) {
    var dir = sort.desc ? -1 : 1;
    return list.slice().sort(function (a, b) { var x = value(a), y = value(b); return (x < y ? -1 : x > y ? 1 : 0) * dir; });
  }
  var body = TK.el("tbody"), count = 0;
  function row(key, label, depth, cells, hasKids, color) {
    var open = self.expanded.has(key);
    var toggle = TK.el("span", { "class": "tk-toggle", text: hasKids ? (open ? "▾" : "▸") : "" });
    var first = TK.el("td", { style: "padding-left:" + (6 + depth * 14) + "px", title: label }, [toggle]);
    if (color) first.appendChild(TK.el("span", { "class": "tk-swatch", style: "background:" + color }));
    first.appendChild(document.createTextNode(label));
    var tr = TK.el("tr", { "data-node": String(key) }, [first].concat(cells.map(function (c) { return TK.el("td", { text: c }); })));
    if (hasKids) tr.addEventListener("click", function () { if (open) self.expanded.delete(key); else self.expanded.add(key); self.renderTree(); });
    body.appendChild(tr);
    count++;
    return open;
  }
  function walk(list, depth) {
    list.forEach(function (i) {
      if (count > 3000) return;
      var n = tree[i], ch = kids.get(i) || [];
      var cells = [TK.fmtDur(n.incl_real), (100 * n.incl_real / total).toFixed(1) + "%", TK.fmtDur(n.excl_real), TK.meta.hasCpu ? TK.fmtDur(n.incl_cpu) : "—", String(n.calls)];
      if (TK.meta.hasEnergy) cells.push(TK.fmtJ(n.incl_energy || 0));
      var open = row(i, TK.methodName(n.method), depth, cells, ch.length > 0, TK.color(n.method));
      if (open) walk(ordered(ch), depth + 1);
    });
  }
  TK.meta.threads.forEach(function (t, ti) {
    var roots = kids.get("t" + ti) || [];
    if (!roots.length) return;
    var key = "t" + ti, incl = roots.reduce(function (s, i) { return s + tree[i].incl_real; }, 0);
    if (!self.seenThreads) { self.seenThreads = true; TK.meta.threads.forEach(function (_, k) { self.expanded.add("t" + k); }); }
    var tcells = [TK.fmtDur(incl), (100 * incl / total).toFixed(1) + "%", "", "", ""];
    if (TK.meta.hasEnergy) tcells.push(TK.fmtJ(roots.reduce(function (s, i) { return s + (tree[i].incl_energy || 0); }, 0)));
    if (row(key, t.name, 0, tcells, true, null)) walk(ordered(roots), 1);
  });
  table.appendChild(body);
  var box = TK.$("tk-calltree");
  box.textContent = "";
  if (this.prof.tree_dropped) box.appendChild(TK.el("div", { "class": "tk-note", text: "Showing the " + tree.length.toLocaleString("en") + " heaviest call paths; " + this.prof.tree_dropped.toLocaleString("en") + " lighter ones are left out." }));
  box.appendChild(table);
};

TK.Tables.prototype.renderFlame = function () {
  var self = this, tree = this.prof.tree, kids = this.children(), c = TK.$("tk-flame");
  var W = Math.max(200, c.parentNode.clientWidth - 4), RH = 16, maxDepth = 0, boxes = [];
  var total = 0, threads = [], pick = TK.$("tk-flame-weight");
  pick.disabled = !TK.meta.hasEnergy;
  if (!pick.bound) { pick.bound = true; pick.addEventListener("change", function () { self.flameFocus = null; self.renderFlame(); }); }
  // Width by time, or by energy (each frame's inclusive energy).
  var byEnergy = TK.meta.hasEnergy && pick.value === "energy", key = byEnergy ? "incl_energy" : "incl_real";
  var fmt = function (n) { return byEnergy ? TK.fmtJ(n[key] || 0) : TK.fmtDur(n.incl_real); };
  c.setAttribute("data-weight", byEnergy ? "energy" : "time");
  TK.meta.threads.forEach(function (t, ti) {
    var roots = kids.get("t" + ti) || [], incl = roots.reduce(function (s, i) { return s + (tree[i][key] || 0); }, 0);
    if (incl > 0) { threads.push({ ti: ti, roots: roots, incl: incl }); total += incl; }
  });
  var x = 0;
  function place(list, x0, depth, scale) {
    var xx = x0;
    list.forEach(function (i) {
      var n = tree[i], w = (n[key] || 0) * scale;
      if (w < 0.3) { xx += w; return; }
      boxes.push({ x: xx, w: w, d: depth, m: n.method, n: n, node: i });
      if (depth > maxDepth) maxDepth = depth;
      place(kids.get(i) || [], xx, depth + 1, scale);
      xx += w;
    });
  }
  if (this.flameProf !== this.prof) { this.flameProf = this.prof; this.flameFocus = null; }
  var focus = this.flameFocus;
  if (focus !== null && tree[focus] && tree[focus][key] > 0) {
    // Focused on one call path: it spans the width; click it to go back.
    boxes.push({ x: 0, w: W, d: 0, m: tree[focus].method, n: tree[focus], node: focus });
    place(kids.get(focus) || [], 0, 1, W / tree[focus][key]);
  } else {
    var scale = total ? W / total : 0;
    threads.forEach(function (t) {
      var tn = { calls: 0 }; tn[key] = t.incl; tn.incl_real = byEnergy ? 0 : t.incl;
      boxes.push({ x: x, w: t.incl * scale, d: 0, thread: TK.meta.threads[t.ti].name, n: tn });
      place(t.roots, x, 1, scale);
      x += t.incl * scale;
    });
  }
  var H = (maxDepth + 1) * RH + 4;
  var ctx = TK.Timeline.prototype.resize(c, W, H);
  c.style.width = W + "px";
  ctx.clearRect(0, 0, W, H);
  ctx.font = "10px system-ui, sans-serif"; ctx.textBaseline = "middle";
  boxes.forEach(function (b) {
    var y = b.d * RH;
    ctx.fillStyle = b.thread ? "#c9d3e3" : TK.color(b.m);
    ctx.fillRect(b.x, y, Math.max(0.5, b.w - 0.5), RH - 1);
    if (b.w > 30) {
      ctx.save(); ctx.beginPath(); ctx.rect(b.x, y, b.w, RH); ctx.clip();
      ctx.fillStyle = "#1d2330"; ctx.fillText(b.thread || TK.methodName(b.m), b.x + 3, y + RH / 2);
      ctx.restore();
    }
  });
  this.flameBoxes = boxes;
  this.flameFmt = fmt;
  if (!c.bound) {
    c.bound = true;
    c.addEventListener("mousemove", function (e) {
      var r = c.getBoundingClientRect(), mx = e.clientX - r.left, d = Math.floor((e.clientY - r.top) / RH), tip = TK.$("tk-tooltip");
      var b = (self.flameBoxes || []).filter(function (b) { return b.d === d && b.x <= mx && mx < b.x + b.w; })[0];
      if (!b) { tip.hidden = true; return; }
      tip.textContent = (b.thread || TK.methodName(b.m)) + " — " + self.flameFmt(b.n) + (b.thread ? "" : ", " + b.n.calls + " calls") +
        (b.node === undefined ? "" : b.node === self.flameFocus ? " (click: back to all)" : " (click: focus)");
      tip.hidden = false; tip.style.left = (e.clientX + 12) + "px"; tip.style.top = (e.clientY + 12) + "px";
    });
    c.addEventListener("mouseleave", function () { TK.$("tk-tooltip").hidden = true; });
    c.addEventListener("click", function (e) {
      var r = c.getBoundingClientRect(), mx = e.clientX - r.left, d = Math.floor((e.clientY - r.top) / RH);
      var b = (self.flameBoxes || []).filter(function (b) { return b.d === d && b.x <= mx && mx < b.x + b.w; })[0];
      if (!b) return;
      self.flameFocus = (b.node === undefined || b.node === self.flameFocus) ? null : b.node;
      self.renderFlame();
    });
  }
};

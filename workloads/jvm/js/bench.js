// A small JavaScript workload for Rhino (tracekit path-profiling benchmarks):
// numbers, strings, objects, arrays with comparators, closures, regular
// expressions and exceptions, so Rhino's interpreter takes many paths.
var n = (typeof arguments !== 'undefined' && arguments.length > 0) ? parseInt(arguments[0]) : 2000;

function sieve(limit) {
  var flags = [], count = 0;
  for (var i = 2; i <= limit; i++) flags[i] = true;
  for (var p = 2; p <= limit; p++) {
    if (!flags[p]) continue;
    count++;
    for (var k = p * p; k <= limit; k += p) flags[k] = false;
  }
  return count;
}

function words(count) {
  var parts = [];
  for (var i = 0; i < count; i++) parts.push("w" + (i * 7919 % 1000).toString(16));
  var text = parts.join(" ");
  var m = text.match(/w[a-f]+\b/g) || [];
  return m.length + text.replace(/[0-9]/g, "").length;
}

function objects(count) {
  var list = [];
  for (var i = 0; i < count; i++) list.push({ id: i, key: (i * 31) % 97, tag: i % 3 === 0 ? "a" : "b" });
  list.sort(function (x, y) { return x.key - y.key || x.id - y.id; });
  var byTag = {};
  list.forEach(function (o) { byTag[o.tag] = (byTag[o.tag] || 0) + o.key; });
  return byTag.a + byTag.b + list[0].id;
}

function fib(k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }

function errors(count) {
  var caught = 0;
  for (var i = 0; i < count; i++) {
    try {
      if (i % 5 === 0) throw new Error("e" + i);
      if (i % 7 === 0) null.x;
    } catch (e) {
      caught += (e instanceof TypeError) ? 2 : 1;
    }
  }
  return caught;
}

function json(count) {
  var data = [];
  for (var i = 0; i < count; i++) data.push({ n: i, s: "v" + i, b: i % 2 === 0 });
  return JSON.parse(JSON.stringify(data)).length;
}

var total = sieve(n * 5) + words(n) + objects(n) + fib(15) + errors(n) + json(n / 4);
print("rhino-bench " + total);

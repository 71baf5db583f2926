#!/usr/bin/env python3
"""Prints the Markdown tables of BENCHMARKS.md from scripts/bench/paths.sh's JSON."""
import json
import math
import os
import sys

out = sys.argv[1]
names = sorted({f.rsplit("-w", 1)[0] for f in os.listdir(out) if "-w" in f and f.endswith(".json") and not f.startswith("adapt")},
               key=lambda n: (n == "Rhino", n))


def load(name, w):
    with open(os.path.join(out, f"{name}-w{w}.json")) as f:
        return json.load(f)


def row(c, scheme):
    return next(r for r in c["rows"] if r["scheme"] == scheme)


def gmean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


for w in (32, 64):
    print(f"\n### Trace size, W = {w} (bits; every word, breakpoint node and method reference)\n")
    print("| workload | invocations | branches | BLPP | PAP | AdapTracer | AT vs PAP | AT packed | ideal | AT words / ideal | zstd -19 choices | exact |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    g = {k: [] for k in ("blpp", "pap", "at", "red", "packed", "ratio", "zstd")}
    for n in names:
        c = load(n, w)
        b, p, a = row(c, "blpp")["bits"], row(c, "pap")["bits"], row(c, "adaptracer")["bits"]
        inv = row(c, "raw")["invocations"]
        red = 1 - a / p
        ideal = c["ideal_bits"]
        # AdapTracer's words alone (method references removed) against the ideal code length.
        code = a - row(c, "adaptracer")["method_ref_bits"]
        exact = all(r["exact"] for r in c["rows"]) and c["adaptracer_words_equal"]
        z = c.get("zstd_bits")
        print(f"| {n} | {inv} | {c['branches']} | {b} | {p} | {a} | {red:+.1%} | {row(c, 'adaptracer')['packed_bits']} | {ideal:.0f} | "
              f"{(code / ideal if ideal else float('nan')):.2f} | {z if z is not None else 'n/a'} | {'yes' if exact else 'NO'} |")
        g["blpp"].append(b); g["pap"].append(p); g["at"].append(a); g["red"].append(a / p)
        g["packed"].append(row(c, "adaptracer")["packed_bits"]); g["zstd"].append(z or 0)
        if ideal:
            g["ratio"].append(code / ideal)
    print(f"| **geometric mean** | | | {gmean(g['blpp']):.0f} | {gmean(g['pap']):.0f} | {gmean(g['at']):.0f} | "
          f"{1 - gmean(g['red']):+.1%} | {gmean(g['packed']):.0f} | | {gmean(g['ratio']):.2f} | {gmean(g['zstd']):.0f} | |")

print("\n### Run time (median seconds, whole JVM run incl. start-up and log writing), W = 64\n")
print("| workload | uninstrumented | raw | BLPP | PAP | AdapTracer | AT / PAP | AT / uninstr. |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
ratios, overs = [], []
for n in names:
    c = load(n, 64)
    t = {r["scheme"]: r["seconds"] for r in c["rows"]}
    ratios.append(t["adaptracer"] / t["pap"]); overs.append(t["adaptracer"] / c["baseline_seconds"])
    print(f"| {n} | {c['baseline_seconds']:.3f} | {t['raw']:.3f} | {t['blpp']:.3f} | {t['pap']:.3f} | {t['adaptracer']:.3f} | "
          f"{t['adaptracer'] / t['pap']:.2f} | {t['adaptracer'] / c['baseline_seconds']:.2f} |")
print(f"| **geometric mean** | | | | | | {gmean(ratios):.2f} | {gmean(overs):.2f} |")

print("\n### inc = 1..4 across repeated runs (AdapTracer, W = 32, each run starts from the previous run's model)\n")
for wl in ("MathOps", "HeapSort"):
    print(f"\n{wl}: trace bits (ideal code length) per run\n")
    runs = {}
    for inc in (1, 2, 3, 4):
        p = os.path.join(out, f"adapt-{wl}-inc{inc}.json")
        if os.path.exists(p):
            with open(p) as f:
                runs[inc] = json.load(f)
    n = max(len(v) for v in runs.values())
    print("| run | " + " | ".join(f"inc {i}" for i in runs) + " |")
    print("|---:|" + "---:|" * len(runs))
    for k in range(n):
        print(f"| {k + 1} | " + " | ".join(f"{runs[i][k]['bits']} ({runs[i][k]['ideal_bits']:.0f})" for i in runs) + " |")

#!/usr/bin/env python3
"""Prints the Markdown tables of BENCHMARKS.md from scripts/bench/paths.sh's JSON."""
import json
import math
import os
import sys

out = sys.argv[1]
names = sorted({f.rsplit("-w", 1)[0] for f in os.listdir(out) if "-w" in f and f.endswith(".json") and not f.startswith("adapt")},
               key=lambda n: (n == "Rhino", n))


# Widths measured for every workload (`WIDTHS=64 scripts/bench/paths.sh` runs only W = 64).
widths = [w for w in (32, 64) if all(os.path.exists(os.path.join(out, f"{n}-w{w}.json")) for n in names)]


def load(name, w):
    with open(os.path.join(out, f"{name}-w{w}.json")) as f:
        return json.load(f)


def row(c, scheme):
    return next(r for r in c["rows"] if r["scheme"] == scheme)


def gmean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


for w in widths:
    print(f"\n### Trace size, W = {w} (bits; every word, breakpoint node and method reference)\n")
    print("| workload | invocations | branches | BLPP | PAP | AdapTracer | AT smaller than PAP by | AT stream | stream smaller than PAP by | ideal | AT words / ideal | stream words / ideal | zstd -19 choices | exact |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    g = {k: [] for k in ("blpp", "pap", "at", "red", "stream", "sred", "ratio", "sratio", "zstd")}
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
        st = row(c, "adaptracer-stream")
        scode = st["bits"] - st["method_ref_bits"]
        print(f"| {n} | {inv} | {c['branches']} | {b} | {p} | {a} | {red:.1%} | {st['bits']} | {1 - st['bits'] / p:.1%} | {ideal:.0f} | "
              f"{(code / ideal if ideal else float('nan')):.2f} | {(scode / ideal if ideal else float('nan')):.2f} | "
              f"{z if z is not None else 'n/a'} | {'yes' if exact else 'NO'} |")
        g["blpp"].append(b); g["pap"].append(p); g["at"].append(a); g["red"].append(a / p)
        g["stream"].append(st["bits"]); g["sred"].append(st["bits"] / p); g["zstd"].append(z or 0)
        if ideal:
            g["ratio"].append(code / ideal)
            g["sratio"].append(scode / ideal)
    print(f"| **geometric mean** | | | {gmean(g['blpp']):.0f} | {gmean(g['pap']):.0f} | {gmean(g['at']):.0f} | "
          f"{1 - gmean(g['red']):.1%} | {gmean(g['stream']):.0f} | {1 - gmean(g['sred']):.1%} | | {gmean(g['ratio']):.2f} | "
          f"{gmean(g['sratio']):.2f} | {gmean(g['zstd']):.0f} | |")

for w in widths:
    print(f"\n### Context stream against zstd -19, W = {w} (bits; the whole trace: words only, nothing outside the coder)\n")
    print("| workload | AT stream | AT context | context smaller than stream by | context ideal | context words / ideal | zstd -19 choices | context / zstd | exact |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    g = {k: [] for k in ("stream", "ctx", "zstd", "rz")}
    for n in names:
        c = load(n, w)
        st, cx = row(c, "adaptracer-stream"), row(c, "adaptracer-context")
        z = c.get("zstd_bits") or 0
        ideal = cx.get("ideal_bits") or float("nan")
        exact = cx["exact"] and c["adaptracer_words_equal"]
        print(f"| {n} | {st['bits']} | {cx['bits']} | {1 - cx['bits'] / st['bits']:.2%} | {ideal:.0f} | {cx['bits'] / ideal:.2f} | "
              f"{z} | {cx['bits'] / z if z else float('nan'):.2f} | {'yes' if exact else 'NO'} |")
        g["stream"].append(st["bits"]); g["ctx"].append(cx["bits"]); g["zstd"].append(z)
        if z:
            g["rz"].append(cx["bits"] / z)
    print(f"| **geometric mean** | {gmean(g['stream']):.0f} | {gmean(g['ctx']):.0f} | {1 - gmean(g['ctx']) / gmean(g['stream']):.2%} | | | "
          f"{gmean(g['zstd']):.0f} | {gmean(g['rz']):.2f} | |")

print("\n### Run time (median seconds, whole JVM run incl. start-up and log writing), W = 64\n")
print("| workload | uninstrumented | raw | BLPP | PAP | AdapTracer | AT stream | AT context | AT / PAP | stream / PAP | context / PAP | AT / uninstr. |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
ratios, sratios, cratios, overs = [], [], [], []
for n in names:
    c = load(n, 64)
    t = {r["scheme"]: r["seconds"] for r in c["rows"]}
    ratios.append(t["adaptracer"] / t["pap"]); sratios.append(t["adaptracer-stream"] / t["pap"])
    cratios.append(t["adaptracer-context"] / t["pap"])
    overs.append(t["adaptracer"] / c["baseline_seconds"])
    print(f"| {n} | {c['baseline_seconds']:.3f} | {t['raw']:.3f} | {t['blpp']:.3f} | {t['pap']:.3f} | {t['adaptracer']:.3f} | "
          f"{t['adaptracer-stream']:.3f} | {t['adaptracer-context']:.3f} | {t['adaptracer'] / t['pap']:.2f} | "
          f"{t['adaptracer-stream'] / t['pap']:.2f} | {t['adaptracer-context'] / t['pap']:.2f} | "
          f"{t['adaptracer'] / c['baseline_seconds']:.2f} |")
print(f"| **geometric mean** | | | | | | | | {gmean(ratios):.2f} | {gmean(sratios):.2f} | {gmean(cratios):.2f} | {gmean(overs):.2f} |")

print("\n### inc = 1..4 across repeated runs (AdapTracer, W = 32, each run starts from the previous run's model)\n")
for wl in ("MathOps", "HeapSort", "Rhino", "Rhino-stream"):
    print(f"\n{wl}: trace bits (ideal code length) per run\n")
    runs = {}
    if not any(os.path.exists(os.path.join(out, f"adapt-{wl}-inc{i}.json")) for i in (1, 2, 3, 4)):
        continue
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

#!/usr/bin/env python3
"""Markdown tables of scripts/bench/paths-real.sh's results.tsv."""
import math
import sys

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
base, data, order, schemes = {}, {}, [], []
for r in rows:
    name, scheme = r[0], r[1]
    if name not in order:
        order.append(name)
    if scheme == "uninstrumented":
        base[name] = (float(r[2]), float(r[3]))
        continue
    if scheme not in schemes:
        schemes.append(scheme)
    wall, cpu, invs, bits, nbytes = float(r[2]), float(r[3]), int(r[4]), int(r[5]), int(r[6])
    dec = r[7].split()
    dcpu = float(dec[2]) + float(dec[3]) if len(dec) >= 4 else float("nan")
    data[(name, scheme)] = (wall, invs, bits, nbytes, float(dec[0]), int(dec[1]) / 1024, cpu, dcpu)


def gm(v):
    v = [x for x in v if x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


for title, k, bk in [("Wall time", 0, 0), ("CPU time (user + system, every thread of the JVM)", 6, 1)]:
    print(f"### {title}: median seconds, and the slowdown against uninstrumented\n")
    print("| workload | uninstrumented | " + " | ".join(schemes) + " |")
    print("|---|---:|" + "---:|" * len(schemes))
    for n in order:
        cells = [f"{data[(n, s)][k]:.2f} ({data[(n, s)][k] / base[n][bk]:.2f}×)" if (n, s) in data else "" for s in schemes]
        print(f"| {n} | {base[n][bk]:.2f} | " + " | ".join(cells) + " |")
    for label, names in [("real applications", [n for n in order if n in ("Rhino", "HSQLDB", "H2")]), ("suite", [n for n in order if n not in ("Rhino", "HSQLDB", "H2")])]:
        if names:
            cells = [f"{gm([data[(n, s)][k] / base[n][bk] for n in names if (n, s) in data]):.2f}×" for s in schemes]
            print(f"| **geometric mean, {label}** | | " + " | ".join(cells) + " |")
    print()

print("\n### Log bytes on disk against the counted trace bits\n")
print("| workload | scheme | invocations | trace bits | log bytes | bytes × 8 / bits | bytes beyond the bits |")
print("|---|---|---:|---:|---:|---:|---:|")
for n in order:
    for s in schemes:
        if (n, s) in data:
            _, invs, bits, nbytes = data[(n, s)][:4]
            print(f"| {n} | {s} | {invs} | {bits} | {nbytes} | {nbytes * 8 / max(bits, 1):.4f} | {nbytes - (bits + 7) // 8} |")

print("\n### Decoding: `tracekit paths report` (two streaming passes): wall and CPU seconds, peak MB, invocations decoded per second\n")
print("| workload | scheme | invocations | wall s | CPU s | peak MB | M invocations/s (both passes, wall) | M/s (CPU) |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for n in order:
    for s in schemes:
        if (n, s) in data:
            _, invs, _, _, secs, mb, _, dcpu = data[(n, s)]
            rate = lambda t: f"{2 * invs / t / 1e6:.1f}" if t == t and t > 0 else "—"
            cpu = f"{dcpu:.2f}" if dcpu == dcpu else "—"
            print(f"| {n} | {s} | {invs} | {secs:.2f} | {cpu} | {mb:.0f} | {rate(secs)} | {rate(dcpu)} |")

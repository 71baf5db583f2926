#!/usr/bin/env python3
"""The fork-heavy row of issue 17's slowdown table, with many interleaved runs.

usage: scripts/bench/emu-fork.py RUNS CONFIG...   (after scripts/bench/emu-managed.sh has
built the plugin, busybox and the floor plugin once)

CONFIG is `plain`, a QEMU plugin argument (`/path/floor.so`, `/path/plugin.so,out=DIR`), or
`run:PLUGIN@OUT[@STAGE[@TRACEKIT]]`: `tracekit emu run -o OUT` with TRACEKIT_QEMU_PLUGIN=PLUGIN,
TRACEKIT_STAGE_DIR=STAGE (`none` writes straight into raw/, empty is the default) and that
tracekit binary (default target/release/tracekit). Prints the median CPU seconds
(user + system of QEMU, tracekit and every process they start), its ratio to `plain`'s, and
the median of each round's ratio to that round's `plain` run (robust to the machine's drift);
then the same for wall time.

WORKLOAD=md5sum runs the table's other short row instead, `busybox md5sum` of a 4 MB file
(the same deterministic text as emu-managed.sh's); GUEST="PROGRAM ARGS..." runs any AArch64
guest command (e.g. a JVM row: GUEST="/usr/lib/jvm/java-17-openjdk-arm64/bin/java -cp
workloads/jvm/build/tkbench.jar tkbench.emu.Kernels crypto java 20").
"""
import os, resource, shlex, shutil, statistics, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
busybox = os.path.join(root, "target/emu-busybox/bin/busybox")
tracekit = os.environ.get("TRACEKIT", os.path.join(root, "target/release/tracekit"))
runs, configs = int(sys.argv[1]), sys.argv[2:]
work = tempfile.mkdtemp(prefix="tracekit-emu-fork-")
script = os.path.join(work, "fork14.sh")
with open(script, "w") as f:
    f.write("for i in 1 2 3 4 5 6 7; do echo $i | cat >/dev/null; done\n")  # 14 forked processes
guest = [busybox, "sh", script]
if os.environ.get("GUEST"):
    guest = shlex.split(os.environ["GUEST"])
elif os.environ.get("WORKLOAD") == "md5sum":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from emu_inputs import write_text_4mb
    guest = [busybox, "md5sum", write_text_4mb(os.path.join(work, "data.txt"))]

def measure(cmd, env):
    """CPU seconds and wall seconds of one run."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.monotonic() - t0
    assert p.returncode == 0, (cmd, p.stderr)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall

samples = {c: [] for c in configs}
walls = {c: [] for c in configs}
for _ in range(runs):
    for c in configs:
        env = dict(os.environ)
        if c == "plain":
            cmd = ["qemu-aarch64", *guest]
        elif c.startswith("run:"):
            parts = c[4:].split("@")
            env["TRACEKIT_QEMU_PLUGIN"] = parts[0]
            env.pop("TRACEKIT_STAGE_DIR", None)
            if len(parts) > 2 and parts[2]:
                env["TRACEKIT_STAGE_DIR"] = parts[2]
            binary = parts[3] if len(parts) > 3 else tracekit
            cmd = [binary, "emu", "run", "--arch", "aarch64", "-o", parts[1], "--", *guest]
        else:
            out = c.partition(",out=")[2]
            if out:
                shutil.rmtree(out, ignore_errors=True)
                os.makedirs(out)
            cmd = ["qemu-aarch64", "-plugin", c, *guest]
        used, wall = measure(cmd, env)
        samples[c].append(used)
        walls[c].append(wall)
med = {c: statistics.median(v) for c, v in samples.items()}
base = med.get("plain", 1.0)
# The machine drifts: each round's runs are also set against that round's
# plain run, and the median of those paired ratios is printed beside.
def paired(series, c):
    if "plain" not in series:
        return float("nan")
    return statistics.median(v / p for v, p in zip(series[c], series["plain"]))
wbase = statistics.median(walls["plain"]) if "plain" in walls else 1.0
print("median CPU s, ratio of medians, median of paired ratios; the same for wall time")
for c, v in med.items():
    w = statistics.median(walls[c])
    print(f"{v:.4f} s  {v / base:.3f}x  {paired(samples, c):.3f}x   wall {w:.4f} s  {w / wbase:.3f}x  {paired(walls, c):.3f}x  {c}")
shutil.rmtree(work, ignore_errors=True)

#!/usr/bin/env bash
# Emulator-profiling benchmark (issue 5): slowdown of qemu-<arch> with the
# tracekit plugin against plain qemu-<arch> on the same programs, per ISA
# and as a geometric mean, plus instruction-count exactness checks.
#
# The "inline-add floor" column is scripts/bench/emu-floor-plugin.c: a
# plugin that only counts blocks into one global counter, the least any
# block-counting plugin costs.
#
# usage: scripts/bench/emu.sh [RUNS] [SCALE...]
#   RUNS   runs per configuration (default 5; medians are reported)
#   SCALE  suite scale factors (default: 1 200)
# Times are CPU seconds (user + sys of the emulator process) because the
# machine is shared: wall time is printed too, but waits for a core.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
shift || true
scales=("$@")
[ ${#scales[@]} -gt 0 ] || scales=(1 200)
cd "$root"
cargo build --quiet --release -p tracekit -p tracekit-qemu-plugin
bash scripts/deps/emu.sh
floor_dir=$(mktemp -d)
trap 'rm -rf "$floor_dir"' EXIT
gcc -O2 -shared -fPIC -o "$floor_dir/floor.so" scripts/bench/emu-floor-plugin.c
python3 - "$root" "$runs" "$floor_dir/floor.so" "${scales[@]}" <<'PY'
import json, math, os, resource, shutil, statistics, subprocess, sys, tempfile, time

root, runs, floor, scales = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
plugin = f"{root}/target/release/libtracekit_qemu_plugin.so"
tracekit = f"{root}/target/release/tracekit"
work = tempfile.mkdtemp(prefix="tracekit-emu-bench-")
arches = ["arm", "mips", "aarch64", "x86_64"]
qemu = {"arm": "qemu-arm", "mips": "qemu-mipsel", "aarch64": "qemu-aarch64", "x86_64": "qemu-x86_64"}

def measure(cmd):
    out = os.path.join(work, "raw")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), t1 - t0

print(f"qemu: {subprocess.run(['qemu-arm', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
print(f"runs per configuration: {runs}; medians; CPU s (wall s)\n")
for scale in scales:
    print(f"### suite `all {scale}`\n")
    print("| ISA | plain qemu | inline-add floor | slowdown | + plugin (tb) | slowdown | + plugin (insn) | slowdown | `tracekit emu run` | slowdown |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = {"floor": [], "tb": [], "insn": [], "run": []}
    for arch in arches:
        prog = f"{root}/target/workloads/emu/{arch}/suite"
        raw = os.path.join(work, "raw")
        configs = {
            "plain": [qemu[arch], prog, "all", scale],
            "floor": [qemu[arch], "-plugin", floor, prog, "all", scale],
            "tb": [qemu[arch], "-plugin", f"{plugin},out={raw},mode=tb", prog, "all", scale],
            "insn": [qemu[arch], "-plugin", f"{plugin},out={raw},mode=insn", prog, "all", scale],
            "run": [tracekit, "emu", "run", "--arch", arch, "-o", os.path.join(work, "dir"), "--", prog, "all", scale],
        }
        samples = {k: [] for k in configs}
        for _ in range(runs):
            for k, cmd in configs.items():  # interleaved, so load drifts hit all alike
                samples[k].append(measure(cmd))
        med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in samples.items()}
        base = med["plain"][0]
        row = [arch, f"{med['plain'][0]:.3f} ({med['plain'][1]:.3f})"]
        for k in ["floor", "tb", "insn", "run"]:
            ratios[k].append(med[k][0] / base)
            row += [f"{med[k][0]:.3f} ({med[k][1]:.3f})", f"{med[k][0] / base:.2f}×"]
        print("| " + " | ".join(row) + " |")
    geo = {k: math.exp(sum(map(math.log, v)) / len(v)) for k, v in ratios.items()}
    print(f"| **geometric mean** | | | **{geo['floor']:.2f}×** | | **{geo['tb']:.2f}×** | | **{geo['insn']:.2f}×** | | **{geo['run']:.2f}×** |\n")

print("### instruction-count exactness\n")
print("| ISA | program | process | expected | counted (tb) | counted (insn) |")
print("|---|---|---|---|---|---|")
def report(arch, mode, prog, args):
    d = os.path.join(work, f"x-{arch}-{mode}")
    subprocess.run([tracekit, "emu", "run", "--arch", arch, "--mode", mode, "-o", d, "--", prog, *args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads(subprocess.run([tracekit, "emu", "report", d, "--json"], capture_output=True, check=True).stdout)
for arch in arches:
    for name in ["fork", "kill"]:
        src = f"{root}/workloads/emu/asm/{name}-{arch}.S"
        want = {}
        for line in open(src):
            if line.startswith("// expect "):
                role, *kv = line[len("// expect "):].split()
                want[role] = int(dict(x.split("=") for x in kv)["instructions"])
        prog = f"{root}/target/workloads/emu/{arch}/{name}"
        got = {m: report(arch, m, prog, []) for m in ["tb", "insn"]}
        def role_of(p, procs):
            return "parent" if p["parent"] == 0 and len(procs) > 1 else ("main" if p["parent"] == 0 else "child")
        for m in got:
            got[m] = {role_of(p, got[m]["processes"]): p["instructions"] for p in got[m]["processes"]}
        for role, n in want.items():
            print(f"| {arch} | {name} | {role} | {n} | {got['tb'].get(role)} | {got['insn'].get(role)} |")
    t = report(arch, "tb", f"{root}/target/workloads/emu/{arch}/suite", ["all", "1"])["processes"][0]["instructions"]
    i = report(arch, "insn", f"{root}/target/workloads/emu/{arch}/suite", ["all", "1"])["processes"][0]["instructions"]
    print(f"| {arch} | suite all 1 | main | (insn mode) {i} | {t} | {i} |")
shutil.rmtree(work, ignore_errors=True)
PY

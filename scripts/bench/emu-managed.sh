#!/usr/bin/env bash
# Managed code under the emulator (issue 17): the seed's case study on
# today's software, and the profiler's slowdown against plain QEMU on JVM
# workloads and on short or fork-heavy real programs.
#
# usage: scripts/bench/emu-managed.sh [RUNS] [SCALE]
#   RUNS   timed runs per configuration for the slowdown table (default 5)
#   SCALE  kernel scale for the study runs (default 200)
# Output: Markdown on stdout; the study's run directories stay in
# target/emu-study (tracekit emu study target/emu-study --json re-reads them).
#
# Slowdowns are CPU seconds (user + sys) of the whole command against plain
# qemu-aarch64 on the same program, medians, configurations interleaved.
# "tracekit emu run" includes everything the command does after QEMU exits
# (it writes the totals; the analysis waits for the first report).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
scale=${2:-200}
cd "$root"
cargo build --quiet --release -p tracekit -p tracekit-qemu-plugin
bash scripts/deps/emu-jvm.sh
bash scripts/deps/emu.sh
bash scripts/deps/jvm.sh
# Debian's static busybox for arm64, unpacked (not installed) into target/.
bb_dir="$root/target/emu-busybox"
if [ ! -x "$bb_dir/bin/busybox" ]; then
  mkdir -p "$bb_dir"
  (cd "$bb_dir" && apt-get download -q busybox-static:arm64 >/dev/null && dpkg -x busybox-static_*_arm64.deb . && rm -f ./*.deb)
fi
python3 - "$root" "$runs" "$scale" "$bb_dir/bin/busybox" <<'PY'
import json, math, os, resource, shutil, statistics, subprocess, sys, tempfile, time

root, runs, scale, busybox = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
tk = f"{root}/target/release/tracekit"
plugin = f"{root}/target/release/libtracekit_qemu_plugin.so"
java = "/usr/lib/jvm/java-17-openjdk-arm64/bin/java"
jar = f"{root}/workloads/jvm/build/tkbench.jar"
lib = f"{root}/target/workloads/emu/aarch64/libtkkernels.so"
suite = f"{root}/target/workloads/emu/aarch64/suite"
work = tempfile.mkdtemp(prefix="tracekit-emu-managed-")
env = dict(os.environ, TRACEKIT_QEMU_PLUGIN=plugin)

def cpu(cmd, stdin=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env,
                   stdin=open(stdin) if stdin else None)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def kernels(k, form, sc, extra=()):
    args = [java, *extra]
    if form == "jni":
        args.append(f"-Dtkkernels.lib={lib}")
    return args + ["-cp", jar, "tkbench.emu.Kernels", k, form, str(sc)]

# Inputs for the real programs: a 4 MB file of deterministic text.
data = os.path.join(work, "data.txt")
with open(data, "w") as f:
    x = 12345
    while f.tell() < 4 << 20:
        x = (x * 1103515245 + 12345) & 0x7fffffff
        f.write(f"{x:010d} line {x % 977}\n")
script = os.path.join(work, "fork14.sh")
with open(script, "w") as f:
    f.write("for i in 1 2 3 4 5 6 7; do echo $i | cat >/dev/null; done\n")  # 14 forked processes

print(f"qemu: {subprocess.run(['qemu-aarch64', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
print(f"guest JVM: {java} ({subprocess.run(['qemu-aarch64', java, '-version'], capture_output=True, text=True).stderr.splitlines()[0]})")
print(f"runs per configuration: {runs}; medians of CPU seconds\n")

print("### Slowdown against plain qemu-aarch64\n")
print("| workload | plain qemu (s) | + plugin (s) | slowdown | `tracekit emu run` (s) | slowdown |")
print("|---|---|---|---|---|---|")
cases = [
    ("JVM start: `java -version`", [java, "-version"], None),
    ("Java `sor java 20`, JIT on", kernels("sor", "java", 20), None),
    ("Java `sor java 20`, `-Xint`", kernels("sor", "java", 20, ["-Xint"]), None),
    ("Java `sor jni 20` (JNI)", kernels("sor", "jni", 20), None),
    ("Java `fft java 20`", kernels("fft", "java", 20), None),
    ("Java `crypto java 20`", kernels("crypto", "java", 20), None),
    ("busybox gzip -c (4 MB)", [busybox, "gzip", "-c", data], None),
    ("busybox sort (4 MB)", [busybox, "sort", data], None),
    ("busybox md5sum (4 MB)", [busybox, "md5sum", data], None),
    ("busybox sh: 14 processes", [busybox, "sh", script], None),
]
ratios = {"plugin": [], "run": []}
for name, cmd, stdin in cases:
    raw = os.path.join(work, "raw")
    configs = {
        "plain": ["qemu-aarch64", *cmd],
        "plugin": ["qemu-aarch64", "-plugin", f"{plugin},out={raw}", *cmd],
        "run": [tk, "emu", "run", "--arch", "aarch64", "-o", os.path.join(work, "run"), "--", *cmd],
    }
    samples = {k: [] for k in configs}
    for _ in range(runs):
        for k, c in configs.items():
            shutil.rmtree(raw, ignore_errors=True)
            os.makedirs(raw)
            samples[k].append(cpu(c, stdin))
    med = {k: statistics.median(v) for k, v in samples.items()}
    for k in ratios:
        ratios[k].append(med[k] / med["plain"])
    print(f"| {name} | {med['plain']:.3f} | {med['plugin']:.3f} | {med['plugin'] / med['plain']:.2f}× | {med['run']:.3f} | {med['run'] / med['plain']:.2f}× |")
geo = {k: math.exp(sum(map(math.log, v)) / len(v)) for k, v in ratios.items()}
print(f"| **geometric mean** | | | **{geo['plugin']:.2f}×** | | **{geo['run']:.2f}×** |\n")

# The study: every kernel in every form, JIT on and off.
study = f"{root}/target/emu-study"
shutil.rmtree(study, ignore_errors=True)
for k in ["fft", "lu", "sor", "mc", "sparse", "crypto"]:
    for name, cmd in [
        ("java", kernels(k, "java", scale)),
        ("java-int", kernels(k, "java", scale, ["-Xint"])),
        ("jni", kernels(k, "jni", scale)),
        ("jni-int", kernels(k, "jni", scale, ["-Xint"])),
        ("c", [suite, k, scale]),
    ]:
        subprocess.run([tk, "emu", "run", "--arch", "aarch64", "-o", f"{study}/aarch64-{k}-{name}", "--", *cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
print(f"### The study (`tracekit emu study target/emu-study`, kernels at scale {scale})\n")
print(subprocess.run([tk, "emu", "study", study], capture_output=True, text=True, check=True).stdout)
shutil.rmtree(work, ignore_errors=True)
PY

#!/usr/bin/env bash
# Managed code under the emulator (issue 17): the seed's case study on
# today's software, and the profiler's slowdown against plain QEMU on JVM
# workloads and on short or fork-heavy real programs.
#
# usage: [SKIP_STUDY=1] [NO_BUILD=1] scripts/bench/emu-managed.sh [RUNS] [SCALE]
#   RUNS   timed runs per configuration for the slowdown table (default 5)
#   SCALE  kernel scale for the study runs (default 200)
#   SKIP_STUDY=1 prints the slowdown table only; NO_BUILD=1 uses the
#   release build as it is (e.g. while another cargo command holds the lock)
# Output: Markdown on stdout; the study's run directories stay in
# target/emu-study (tracekit emu study target/emu-study --json re-reads them).
#
# Slowdowns are CPU seconds (user + sys) of the whole command against plain
# qemu-aarch64 on the same program, medians, configurations interleaved.
# "tracekit emu run" includes everything the command does after QEMU exits
# (it writes the totals; the analysis waits for the first report). The
# "inline-add floor" is scripts/bench/emu-floor-plugin.c, a plugin that only
# counts blocks into one counter: QEMU's own cost of instrumenting blocks.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
scale=${2:-200}
cd "$root"
[ -n "${NO_BUILD:-}" ] || cargo build --quiet --release -p tracekit -p tracekit-qemu-plugin
bash scripts/deps/emu-jvm.sh
bash scripts/deps/emu.sh
bash scripts/deps/jvm.sh
# Debian's static busybox for arm64, unpacked (not installed) into target/.
floor_dir=$(mktemp -d)
trap 'rm -rf "$floor_dir"' EXIT
gcc -O2 -shared -fPIC -o "$floor_dir/floor.so" scripts/bench/emu-floor-plugin.c
bb_dir="$root/target/emu-busybox"
if [ ! -x "$bb_dir/bin/busybox" ]; then
  mkdir -p "$bb_dir"
  (cd "$bb_dir" && apt-get download -q busybox-static:arm64 >/dev/null && dpkg -x busybox-static_*_arm64.deb . && rm -f ./*.deb)
fi
SKIP_STUDY=${SKIP_STUDY:-} python3 - "$root" "$runs" "$scale" "$bb_dir/bin/busybox" "$floor_dir/floor.so" <<'PY'
import json, math, os, resource, shutil, statistics, subprocess, sys, tempfile, time

root, runs, scale, busybox, floor = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
tk = f"{root}/target/release/tracekit"
plugin = f"{root}/target/release/libtracekit_qemu_plugin.so"
java = "/usr/lib/jvm/java-17-openjdk-arm64/bin/java"
arm_java = "/opt/tracekit/guest-jvm/armhf/usr/lib/jvm/java-17-openjdk-armhf/bin/java"
jar = f"{root}/workloads/jvm/build/tkbench.jar"
lib = f"{root}/target/workloads/emu/aarch64/libtkkernels.so"
work = tempfile.mkdtemp(prefix="tracekit-emu-managed-")
env = dict(os.environ, TRACEKIT_QEMU_PLUGIN=plugin)

def cpu(cmd, stdin=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env,
                   stdin=open(stdin) if stdin else None)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def kernels(k, form, sc, extra=(), jvm=None, jni_lib=None):
    args = [jvm or java, *extra]
    if form == "jni":
        args.append(f"-Dtkkernels.lib={jni_lib or lib}")
    return args + ["-cp", jar, "tkbench.emu.Kernels", k, form, str(sc)]

# Inputs for the real programs: a 4 MB file of deterministic text.
sys.path.insert(0, f"{root}/scripts/bench")
from emu_inputs import write_text_4mb
data = write_text_4mb(os.path.join(work, "data.txt"))
script = os.path.join(work, "fork14.sh")
with open(script, "w") as f:
    f.write("for i in 1 2 3 4 5 6 7; do echo $i | cat >/dev/null; done\n")  # 14 forked processes

print(f"qemu: {subprocess.run(['qemu-aarch64', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
print(f"guest JVM: {java} ({subprocess.run(['qemu-aarch64', java, '-version'], capture_output=True, text=True).stderr.splitlines()[0]})")
print(f"runs per configuration: {runs}; medians of CPU seconds\n")

print("### Slowdown against plain QEMU (qemu-aarch64; qemu-arm for the armhf rows)\n")
print("| workload | plain qemu (s) | inline-add floor (s) | slowdown | + plugin (s) | slowdown | `tracekit emu run` (s) | slowdown |")
print("|---|---|---|---|---|---|---|---|")
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
# The ARMv7 JVM (unpacked by emu-jvm.sh; libc from the cross toolchain).
arm_qemu = ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf"]
cases = [(name, cmd, stdin, "aarch64") for name, cmd, stdin in cases]
if os.path.exists(arm_java):
    cases += [
        ("armhf: JVM start", [arm_java, "-version"], None, "arm"),
        ("armhf: Java `sor java 20`", kernels("sor", "java", 20, jvm=arm_java), None, "arm"),
    ]
ratios = {"floor": [], "plugin": [], "run": []}
for name, cmd, stdin, arch in cases:
    raw = os.path.join(work, "raw")
    qemu = arm_qemu if arch == "arm" else ["qemu-aarch64"]
    configs = {
        "plain": [*qemu, *cmd],
        "floor": [*qemu, "-plugin", floor, *cmd],
        "plugin": [*qemu, "-plugin", f"{plugin},out={raw}", *cmd],
        "run": [tk, "emu", "run", "--arch", arch, "-o", os.path.join(work, "run"), "--", *cmd],
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
    cells = " | ".join(f"{med[k]:.3f} | {med[k] / med['plain']:.2f}×" for k in ratios)
    print(f"| {name} | {med['plain']:.3f} | {cells} |", flush=True)
geo = {k: math.exp(sum(map(math.log, v)) / len(v)) for k, v in ratios.items()}
print(f"| **geometric mean** | | | **{geo['floor']:.2f}×** | | **{geo['plugin']:.2f}×** | | **{geo['run']:.2f}×** |\n")
if os.environ.get("SKIP_STUDY"):
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(0)

# The study: every kernel in every form, JIT on and off, on every arch with
# a guest JVM (arm64 through multiarch, armhf unpacked by emu-jvm.sh); the
# bare name `java` is resolved by `tracekit emu run` for the guest's arch.
study = f"{root}/target/emu-study"
shutil.rmtree(study, ignore_errors=True)
for arch in ["aarch64", "arm"]:
    arch_lib = f"{root}/target/workloads/emu/{arch}/libtkkernels.so"
    arch_suite = f"{root}/target/workloads/emu/{arch}/suite"
    for k in ["fft", "lu", "sor", "mc", "sparse", "crypto"]:
        for name, cmd in [
            ("java", kernels(k, "java", scale, jvm="java")),
            ("java-int", kernels(k, "java", scale, ["-Xint"], jvm="java")),
            ("jni", kernels(k, "jni", scale, jvm="java", jni_lib=arch_lib)),
            ("jni-int", kernels(k, "jni", scale, ["-Xint"], jvm="java", jni_lib=arch_lib)),
            ("c", [arch_suite, k, scale]),
        ]:
            subprocess.run([tk, "emu", "run", "--arch", arch, "-o", f"{study}/{arch}-{k}-{name}", "--", *cmd],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
print(f"### The study (`tracekit emu study target/emu-study`, kernels at scale {scale})\n")
print(subprocess.run([tk, "emu", "study", study], capture_output=True, text=True, check=True).stdout)
shutil.rmtree(work, ignore_errors=True)
PY

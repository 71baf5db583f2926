#!/usr/bin/env bash
# What per-invocation path tracing costs before any coding, on real
# applications (issue 21): the floor under every scheme. Each workload runs,
# interleaved round by round (medians of REPEAT runs, wall and CPU time of
# the whole JVM), as
#
#   uninstrumented     the jar as shipped;
#   hook               every method given the one-path probe (Rt.exit0 at
#                      each return, Rt.abort0 in a catch-all handler), and
#                      the runtime's exit and abort returning at once: one
#                      empty static call per invocation, no path state;
#   record             the same probes, each invocation's record stored in
#                      the thread's buffer and handed to the coder thread,
#                      which drops it: a trace with no path in it, never
#                      coded;
#   minimal            the same, coded and written as BLPP codes a method of
#                      one path (its id and a 64-bit register);
#   S-probes           scheme S's own probes, exit and abort returning at
#                      once: path state kept, nothing recorded;
#   S-records          scheme S's records handed over and dropped, not coded;
#   S                  scheme S as shipped, the log written to disk.
#
# The variants are the runtime's and the instrumenter's own sources (from
# the Java tools `tracekit paths instrument` builds) with a line or two
# changed, compiled into a scratch cache (TRACEKIT_JVM_CACHE) and swapped
# into the instrumented jars; nothing is changed in the checkout or in the
# user's cache. Only the shipped runs make valid logs.
#
#   scripts/bench/paths-floor.sh [OUT_DIR]
#
# Environment: REPEAT (default 7), ROWS (default 20000), RHINO_N (default
# 400), SCHEMES (default "blpp adaptracer adaptracer-context"), WORKLOADS
# (default "rhino hsqldb h2"), WIDTH (default 64).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/bench-paths-floor}
REPEAT=${REPEAT:-7}
ROWS=${ROWS:-20000}
RHINO_N=${RHINO_N:-400}
SCHEMES=${SCHEMES:-"blpp adaptracer adaptracer-context"}
WORKLOADS=${WORKLOADS:-"rhino hsqldb h2"}
WIDTH=${WIDTH:-64}
# shellcheck source=scripts/bench/paths-schemes.sh
source "$root/scripts/bench/paths-schemes.sh"
paths_bench_setup "$out"
build="$root/workloads/jvm/build"
rm -rf "$out/cache" "$out/variants"
mkdir -p "$out/variants"

# The Java tools as shipped, built into a scratch cache by one instrument run.
TRACEKIT_JVM_CACHE="$out/cache/shipped" "$tk" paths instrument "$build/tkbench.jar" -o "$out/warm.jar" 2>/dev/null
shipped=$(ls -d "$out"/cache/shipped/jvm-*/ | head -1)
shipped=${shipped%/}
rm -f "$out/warm.jar"

# Replaces the text $2 by $3 in file $1, failing when $2 is not there (the
# sources moved on: this script needs updating).
patch_source() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
if old not in text:
    sys.exit(f"paths-floor.sh: {path} no longer contains {old!r}")
open(path, "w").write(text.replace(old, new))
EOF
}

# An instrumenter that gives every method the one-path probe.
straight="$out/cache/straight/$(basename "$shipped")"
mkdir -p "$(dirname "$straight")"
cp -r "$shipped" "$straight"
patch_source "$straight/src/instrumenter/tracekit/instr/Probes.java" \
  "if (plan.leaders.length == 1 && plan.edges.isEmpty()) {" "if (true) {"
rm -rf "$straight/instr"
javac -nowarn -cp "${TRACEKIT_ASM_CLASSPATH:-/usr/share/java/asm.jar:/usr/share/java/asm-tree.jar}" \
  -d "$straight/instr" "$straight"/src/instrumenter/tracekit/instr/*.java

# Runtimes: "probes" (exit and abort return at once), "records" (the coder
# thread drops every buffer it is handed).
for v in probes records; do
  mkdir -p "$out/variants/$v-src"
  cp -r "$shipped/src/runtime/tracekit" "$out/variants/$v-src/"
done
rt="$out/variants/probes-src/tracekit/rt"
for sig in "public static void exit(int method, long state, long[] spill, int n) {" \
  "public static void exit0(int method) {" \
  "public static void abort(int method, long state, int sh, long[] spill, int n, int cur) {"; do
  patch_source "$rt/Rt.java" "$sig" "$sig if (true) return;"
done
patch_source "$out/variants/records-src/tracekit/rt/Sink.java" "            code(b);" "            // dropped"
for v in probes records; do
  javac --release 8 -nowarn -d "$out/variants/$v" "$out/variants/$v-src"/tracekit/rt/*.java
done

variant_jar() { # jar copy variant: copy the jar, with that runtime's classes swapped in
  cp "$1" "$2" && (cd "$out/variants/$3" && jar uf "$2" tracekit/rt/*.class)
}

paths_workload_rows

results="$out/results.tsv"
: >"$results"
for row in "${rows[@]}"; do
  IFS='|' read -r name jar cp main <<<"$row"
  configs=(uninstrumented hook record minimal)
  TRACEKIT_JVM_CACHE="$out/cache/straight" "$tk" paths instrument "$jar" -o "$out/$name-minimal.jar" \
    --width "$WIDTH" --scheme blpp 2>/dev/null
  variant_jar "$out/$name-minimal.jar" "$out/$name-hook.jar" probes
  variant_jar "$out/$name-minimal.jar" "$out/$name-record.jar" records
  for s in $SCHEMES; do
    # shellcheck disable=SC2046
    TRACEKIT_JVM_CACHE="$out/cache/shipped" "$tk" paths instrument "$jar" -o "$out/$name-$s.jar" \
      --width "$WIDTH" $(flags "$s") 2>/dev/null
    for v in probes records; do variant_jar "$out/$name-$s.jar" "$out/$name-$s-$v.jar" $v; done
    configs+=("$s-probes" "$s-records" "$s")
  done
  : >"$out/times.txt"
  for _ in $(seq "$REPEAT"); do
    for c in "${configs[@]}"; do
      j=$jar
      [ "$c" = uninstrumented ] || j="$out/$name-$c.jar"
      # shellcheck disable=SC2086
      TRACEKIT_PATHS_LOG="$out/run.log" /usr/bin/time -o "$out/time.txt" -f '%e %U %S' \
        java -cp "${cp//@JAR@/$j}" $main >/dev/null 2>&1 || true
      echo "$c $(tail -1 "$out/time.txt" | awk '{print $1, $2 + $3}')" >>"$out/times.txt"
    done
  done
  for c in "${configs[@]}"; do
    wall=$(awk -v c="$c" '$1 == c {print $2}' "$out/times.txt" | median)
    cpu=$(awk -v c="$c" '$1 == c {print $3}' "$out/times.txt" | median)
    echo "$name $c ${wall}s wall ${cpu}s cpu" >&2
    printf '%s\t%s\t%s\t%s\n' "$name" "$c" "$wall" "$cpu" >>"$results"
  done
  rm -f "$out"/"$name"-*.jar "$out/run.log"
done

python3 - "$results" <<'EOF'
import math, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
names, configs, t = [], [], {}
for name, c, wall, cpu in rows:
    names += [name] if name not in names else []
    configs += [c] if c not in configs else []
    t[(name, c)] = (float(wall), float(cpu))
for title, k in [("wall", 0), ("CPU, every thread", 1)]:
    print(f"\n| run ({title}) | " + " | ".join(names) + " | geometric mean |")
    print("|---" * (len(names) + 2) + "|")
    for c in configs:
        r = [t[(n, c)][k] / t[(n, "uninstrumented")][k] for n in names]
        cells = [f"{t[(n, c)][k]:.2f} ({x:.2f}×)" for n, x in zip(names, r)]
        g = math.exp(sum(map(math.log, r)) / len(r))
        print(f"| {c} | " + " | ".join(cells) + f" | {g:.2f}× |")
EOF

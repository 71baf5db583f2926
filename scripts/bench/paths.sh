#!/usr/bin/env bash
# Reproduces the JVM path-profiling figures of BENCHMARKS.md (issue 3).
#
#   scripts/bench/paths.sh [OUT_DIR]
#
# For every tkbench workload and Rhino (Debian package) running a JavaScript
# workload, at W = 32 and 64: `tracekit paths compare` (uninstrumented run,
# then raw, BLPP, PAP, AdapTracer, AdapTracer stream-mode and context-stream
# (`--stream --context predict`) runs; decoded
# paths checked against the nodes recorded in the same run;
# times, at W = 64, are medians of REPEAT runs). Then the inc = 1..4 sweep across
# repeated runs (`tracekit paths adapt`) on MathOps (the closest relative of
# the seed's JGFMath), HeapSort and Rhino. Finally prints the Markdown tables.
#
# Environment: REPEAT (default 5), SIZE (tkbench size, default 20000),
# RHINO_N (JavaScript workload size, default 400), RUNS (adaptive runs, default 5),
# WIDTHS (default "32 64"), SKIP_ADAPT=1 (leave out the inc sweep).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/bench-paths}
REPEAT=${REPEAT:-5}
SIZE=${SIZE:-20000}
RHINO_N=${RHINO_N:-400}
RUNS=${RUNS:-5}
mkdir -p "$out"
cd "$root"
bash scripts/deps/jvm.sh
cargo build --release -p tracekit >&2
tk="$root/target/release/tracekit"
jar="$root/workloads/jvm/build/tkbench.jar"
rhino=/usr/share/java/js.jar
workloads="Arith Assign Cast Create Exceptions Loop MathOps Method Serial Series LUFact HeapSort Crypt FFT SOR SparseMatmult"

for w in ${WIDTHS:-32 64}; do
  # Run times are reported for W = 64; at W = 32 only sizes matter.
  rep=1
  [ "$w" = 64 ] && rep=$REPEAT
  for wl in $workloads; do
    echo "compare W=$w $wl" >&2
    "$tk" paths compare --json --width "$w" --repeat "$rep" -- java -cp "$jar" "tkbench.$wl" "$SIZE" >"$out/$wl-w$w.json"
  done
  echo "compare W=$w Rhino" >&2
  "$tk" paths compare --json --width "$w" --repeat "$rep" -- \
    java -cp "$rhino" org.mozilla.javascript.tools.shell.Main -opt -1 "$root/workloads/jvm/js/bench.js" "$RHINO_N" >"$out/Rhino-w$w.json"
done

for inc in $([ "${SKIP_ADAPT:-0}" = 1 ] || echo 1 2 3 4); do
  echo "adapt inc=$inc" >&2
  "$tk" paths adapt --json --runs "$RUNS" --inc "$inc" --width 32 -- java -cp "$jar" tkbench.MathOps "$SIZE" >"$out/adapt-MathOps-inc$inc.json"
  "$tk" paths adapt --json --runs "$RUNS" --inc "$inc" --width 32 -- java -cp "$jar" tkbench.HeapSort "$SIZE" >"$out/adapt-HeapSort-inc$inc.json"
  "$tk" paths adapt --json --runs "$RUNS" --inc "$inc" --width 32 -- \
    java -cp "$rhino" org.mozilla.javascript.tools.shell.Main -opt -1 "$root/workloads/jvm/js/bench.js" "$RHINO_N" >"$out/adapt-Rhino-inc$inc.json"
  "$tk" paths adapt --json --stream --runs "$RUNS" --inc "$inc" --width 32 -- \
    java -cp "$rhino" org.mozilla.javascript.tools.shell.Main -opt -1 "$root/workloads/jvm/js/bench.js" "$RHINO_N" >"$out/adapt-Rhino-stream-inc$inc.json"
done

python3 "$root/scripts/bench/paths_tables.py" "$out"

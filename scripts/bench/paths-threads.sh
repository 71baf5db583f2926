#!/usr/bin/env bash
# Where an instrumented JVM's CPU goes, thread by thread (issue 21): for
# HSQLDB's DbBench (the workload of paths-real.sh), uninstrumented and under
# each scheme, the wall time and the CPU seconds of the program's main
# thread, the C2 and C1 compiler threads and tracekit's coder thread,
# sampled by `perf record` at 2 kHz. Medians of REPEAT runs, interleaved.
#
#   scripts/bench/paths-threads.sh [OUT_DIR]
#
# Environment: REPEAT (default 5), ROWS (default 20000), SCHEMES (default
# "blpp adaptracer-context"), WIDTH (default 64). Needs perf (linux-perf)
# and what paths-real.sh needs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/bench-paths-threads}
REPEAT=${REPEAT:-5}
ROWS=${ROWS:-20000}
SCHEMES=${SCHEMES:-"blpp adaptracer-context"}
WIDTH=${WIDTH:-64}
command -v perf >/dev/null || { echo "paths-threads.sh: needs perf (apt install linux-perf)" >&2; exit 1; }
# shellcheck source=scripts/bench/paths-schemes.sh
source "$root/scripts/bench/paths-schemes.sh"
paths_bench_setup "$out"
jar=/usr/share/java/hsqldb1.8.0.jar
cp_prefix="$root/workloads/jvm/build/tkreal.jar"

declare -a labels=(uninstrumented) jars=("$jar")
for scheme in $SCHEMES; do
  # shellcheck disable=SC2046
  "$tk" paths instrument "$jar" -o "$out/$scheme.jar" --width "$WIDTH" --quiet $(flags "$scheme")
  labels+=("$scheme")
  jars+=("$out/$scheme.jar")
done

samples="$out/samples.tsv"
: >"$samples"
for _ in $(seq "$REPEAT"); do
  for i in "${!labels[@]}"; do
    TRACEKIT_PATHS_LOG="$out/run.log" perf record -F 2000 -o "$out/perf.data" -q -- \
      /usr/bin/time -f %e -o "$out/wall.txt" \
      java -cp "$cp_prefix:${jars[$i]}" tkreal.DbBench jdbc:hsqldb:mem:bench "$ROWS" >/dev/null 2>&1
    perf report -i "$out/perf.data" --sort comm --stdio -q -F sample,comm 2>/dev/null |
      awk -v label="${labels[$i]}" -v wall="$(cat "$out/wall.txt")" '
        { n = $1; $1 = ""; sub(/^ +/, ""); c[$0] += n; t += n }
        END {
          printf "%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", label, wall, t / 2000,
            c["java"] / 2000, c["C2 CompilerThre"] / 2000, c["C1 CompilerThre"] / 2000,
            c["tracekit-paths-"] / 2000
        }' >>"$samples"
  done
done
rm -f "$out/perf.data" "$out/run.log"

echo "| run | wall s | CPU s, all threads | main thread | C2 compiler | C1 compiler | tracekit coder |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for label in "${labels[@]}"; do
  awk -F'\t' -v label="$label" '
    $1 == label { for (k = 2; k <= 7; k++) v[k, ++n[k]] = $k }
    END {
      printf "| %s", label
      for (k = 2; k <= 7; k++) {
        m = n[k]
        # median by insertion sort (REPEAT is small)
        for (i = 1; i <= m; i++) a[i] = v[k, i]
        for (i = 2; i <= m; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
        printf " | %.2f", (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
      }
      print " |"
    }' "$samples"
done

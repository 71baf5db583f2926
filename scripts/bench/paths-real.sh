#!/usr/bin/env bash
# Real applications under every path-profiling scheme (issue 21), side by
# side in one run: for each workload, the run time uninstrumented and per
# scheme (medians of REPEAT runs, whole JVM: wall time, and CPU time of all
# its threads — the coder thread included), the log's bytes on disk against
# the trace bits `decode-log` counts, and the decode time and peak memory of
# `tracekit paths report` (two streaming passes over the log; wall and CPU
# seconds).
#
#   scripts/bench/paths-real.sh [OUT_DIR]
#
# Workloads: Rhino (Debian `rhino`) interpreting workloads/jvm/js/bench.js,
# HSQLDB 1.8 and H2 (Debian `libhsqldb1.8.0-java`, `libh2-java`) running
# workloads/jvm/real/tkreal/DbBench.java (in-memory database: ROWS rows
# inserted, an index, a few queries), and tkbench suite workloads.
# Environment: REPEAT (default 5), ROWS (default 20000), RHINO_N (default
# 400), SIZE (tkbench size, default 20000), SUITE (tkbench workloads,
# default "MathOps HeapSort Method Crypt"), SCHEMES (default all),
# WORKLOADS (default "rhino hsqldb h2 suite"), WIDTH (default 64),
# INTERLEAVE (1: each round runs the uninstrumented program and every
# scheme once in turn, so that a noisy machine's slow spells fall on all
# of them alike; default 0: each scheme's REPEAT runs back to back).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/bench-paths-real}
REPEAT=${REPEAT:-5}
ROWS=${ROWS:-20000}
RHINO_N=${RHINO_N:-400}
SIZE=${SIZE:-20000}
SUITE=${SUITE:-"MathOps HeapSort Method Crypt"}
SCHEMES=${SCHEMES:-"raw blpp pap adaptracer adaptracer-stream adaptracer-context"}
WORKLOADS=${WORKLOADS:-"rhino hsqldb h2 suite"}
WIDTH=${WIDTH:-64}
# shellcheck source=scripts/bench/paths-schemes.sh
source "$root/scripts/bench/paths-schemes.sh"
paths_bench_setup "$out"
results="$out/results.tsv"
: >"$results"

paths_workload_rows

run_times() { # cp main... -> "median-wall median-cpu" seconds (CPU: user + system, all threads)
  local cp=$1; shift
  local walls=() cpus=()
  for _ in $(seq "$REPEAT"); do
    local t
    /usr/bin/time -o "$out/time.txt" -f '%e %U %S' java -cp "$cp" "$@" >/dev/null 2>&1 || true
    t=$(tail -1 "$out/time.txt")
    walls+=("$(echo "$t" | awk '{print $1}')")
    cpus+=("$(echo "$t" | awk '{print $2 + $3}')")
  done
  local w c
  w=$(printf '%s\n' "${walls[@]}" | median)
  c=$(printf '%s\n' "${cpus[@]}" | median)
  echo "$w $c"
}

interleaved_times() { # name jar cp main -> "config wall cpu" medians, one line per config
  local name=$1 jar=$2 cp=$3 main=$4 r c t
  local configs=(uninstrumented $SCHEMES)
  : >"$out/interleaved.txt"
  for r in $(seq "$REPEAT"); do
    for c in "${configs[@]}"; do
      local j=$jar log=/dev/null
      if [ "$c" != uninstrumented ]; then j="$out/$name-$c.jar" log="$out/$name-$c.log"; fi
      # shellcheck disable=SC2086
      TRACEKIT_PATHS_LOG="$log" /usr/bin/time -o "$out/time.txt" -f '%e %U %S' java -cp "${cp//@JAR@/$j}" $main >/dev/null 2>&1 || true
      t=$(tail -1 "$out/time.txt")
      echo "$c $(echo "$t" | awk '{print $1, $2 + $3}')" >>"$out/interleaved.txt"
    done
  done
  for c in "${configs[@]}"; do
    echo "$c $(awk -v c="$c" '$1 == c {print $2}' "$out/interleaved.txt" | median) $(awk -v c="$c" '$1 == c {print $3}' "$out/interleaved.txt" | median)"
  done
}

for row in "${rows[@]}"; do
  IFS='|' read -r name jar cp main <<<"$row"
  if [ "${INTERLEAVE:-0}" = 1 ]; then
    for scheme in $SCHEMES; do
      # shellcheck disable=SC2046
      "$tk" paths instrument "$jar" -o "$out/$name-$scheme.jar" --width "$WIDTH" $(flags "$scheme") 2>/dev/null
    done
    times=$(interleaved_times "$name" "$jar" "$cp" "$main")
    base=$(echo "$times" | awk '$1 == "uninstrumented" {print $2, $3}')
  else
    # shellcheck disable=SC2086
    base=$(TRACEKIT_PATHS_LOG=/dev/null run_times "${cp//@JAR@/$jar}" $main)
  fi
  echo "$name uninstrumented $base (wall, cpu s)" >&2
  printf '%s\tuninstrumented\t%s\t\t\t\t\t\n' "$name" "${base// /	}" >>"$results"
  for scheme in $SCHEMES; do
    tjar="$out/$name-$scheme.jar"
    log="$out/$name-$scheme.log"
    if [ "${INTERLEAVE:-0}" = 1 ]; then
      secs=$(echo "$times" | awk -v c="$scheme" '$1 == c {print $2, $3}')
    else
      # shellcheck disable=SC2046
      "$tk" paths instrument "$jar" -o "$tjar" --width "$WIDTH" $(flags "$scheme") 2>/dev/null
      # shellcheck disable=SC2086
      secs=$(TRACEKIT_PATHS_LOG="$log" run_times "${cp//@JAR@/$tjar}" $main)
    fi
    summary=$("$tk" paths decode-log "$log" --program "$tjar")
    invs=$(echo "$summary" | awk '{print $1}')
    bits=$(echo "$summary" | awk '{print $3}')
    bytes=$(stat -c %s "$log")
    /usr/bin/time -o "$out/time.txt" -f '%e %M %U %S' "$tk" paths report "$log" --program "$tjar" >/dev/null
    dec=$(tail -1 "$out/time.txt")
    echo "$name $scheme ${secs}s $invs invocations $bits bits $bytes bytes; report $dec" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$scheme" "${secs// /	}" "$invs" "$bits" "$bytes" "$dec" >>"$results"
    rm -f "$log" "$tjar"
  done
done
python3 "$root/scripts/bench/paths_real_tables.py" "$results"

#!/usr/bin/env bash
# Decoding speed of every path-profiling scheme on a real application
# (issue 21's "at least 3 M invocations decoded per second"): instruments
# the workload's jar once per scheme, runs it once, then times
# `tracekit paths decode-log` (one streaming pass) and `tracekit paths
# report` (one pass, a second only when a path to show was not kept)
# REPEAT times each. Prints, per scheme, the invocations, the median wall
# seconds and M invocations per second of both commands, and their peak MB.
#
#   scripts/bench/paths-decode.sh [OUT_DIR]
#
# Environment: WORKLOAD (hsqldb or h2, default hsqldb), ROWS (default
# 20000), REPEAT (default 5), SCHEMES (default all).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/bench-paths-decode}
WORKLOAD=${WORKLOAD:-hsqldb}
ROWS=${ROWS:-20000}
REPEAT=${REPEAT:-5}
SCHEMES=${SCHEMES:-"raw blpp pap adaptracer adaptracer-stream adaptracer-context"}
# shellcheck source=scripts/bench/paths-schemes.sh
source "$root/scripts/bench/paths-schemes.sh"
paths_bench_setup "$out"
case $WORKLOAD in
  hsqldb) jar=/usr/share/java/hsqldb1.8.0.jar url=jdbc:hsqldb:mem:bench ;;
  h2) jar=/usr/share/java/h2.jar url=jdbc:h2:mem:bench ;;
  *) echo "WORKLOAD must be hsqldb or h2" >&2; exit 2 ;;
esac

# Times "$@" REPEAT times: "median-wall max-peak-MB".
timed() {
  local walls=() peaks=()
  for _ in $(seq "$REPEAT"); do
    /usr/bin/time -o "$out/time.txt" -f '%e %M' "$@" >/dev/null
    walls+=("$(awk '{print $1}' "$out/time.txt")")
    peaks+=("$(awk '{print $2}' "$out/time.txt")")
  done
  echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${peaks[@]}" | sort -g | tail -1)"
}

printf '| scheme | invocations | decode-log s | M/s | peak MB | report s | M/s | peak MB |\n|---|---:|---:|---:|---:|---:|---:|---:|\n'
for scheme in $SCHEMES; do
  tjar="$out/$WORKLOAD-$scheme.jar"
  log="$out/$WORKLOAD-$scheme.log"
  # shellcheck disable=SC2046
  "$tk" paths instrument "$jar" -o "$tjar" --width 64 $(flags "$scheme") 2>/dev/null
  TRACEKIT_PATHS_LOG="$log" java -cp "$root/workloads/jvm/build/tkreal.jar:$tjar" tkreal.DbBench "$url" "$ROWS" >/dev/null 2>&1
  invs=$("$tk" paths decode-log "$log" --program "$tjar" | awk '{print $1}')
  read -r dw dm < <(timed "$tk" paths decode-log "$log" --program "$tjar")
  read -r rw rm_ < <(timed "$tk" paths report "$log" --program "$tjar")
  awk -v s="$scheme" -v n="$invs" -v dw="$dw" -v dm="$dm" -v rw="$rw" -v rm="$rm_" 'BEGIN {
    printf "| %s | %d | %.2f | %.1f | %d | %.2f | %.1f | %d |\n", s, n, dw, n / dw / 1e6, dm / 1024, rw, n / rw / 1e6, rm / 1024 }'
  rm -f "$log" "$tjar"
done

#!/usr/bin/env bash
# Perfetto import and export benchmark (issue 10's "Measured" section).
#
# Generates a CALLS-call (default 10 million, 2x10^7 events) browser-like
# session with tracekit-report's synthetic generator and writes it as a
# Perfetto trace with tracekit's exporter (RUNS times, timing the export),
# then imports the file RUNS times (default 5). Prints medians of: time
# inside the process, throughput on wall time and on the CPU time of that
# phase (the thread's schedstat: a loaded machine inflates it far less than
# wall time), peak RSS (/usr/bin/time -v) and its ratio to the model's size
# (the call columns' heap bytes).
#
#   scripts/bench/perfetto.sh            # CALLS=10000000 RUNS=5
#   CALLS=1000000 RUNS=3 scripts/bench/perfetto.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
CALLS=${CALLS:-10000000}
RUNS=${RUNS:-5}
OUT=${OUT:-target/bench/perfetto-$CALLS.pftrace}

cargo build --release --quiet -p tracekit-perfetto --examples
mkdir -p "$(dirname "$OUT")"

results=$(mktemp)
trap 'rm -f "$results"' EXIT
measure() { # measure KIND COMMAND...: appends "KIND <program output> rss_kb= user_s= sys_s=".
  local kind=$1; shift
  local log; log=$(mktemp)
  local line; line=$(/usr/bin/time -v -o "$log" "$@")
  local rss user sys
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  user=$(awk -F': ' '/User time/ {print $2}' "$log")
  sys=$(awk -F': ' '/System time/ {print $2}' "$log")
  echo "kind=$kind $line rss_kb=$rss user_s=$user sys_s=$sys" >>"$results"
  rm -f "$log"
}
for _ in $(seq "$RUNS"); do
  measure export target/release/examples/gen_perfetto "$OUT" "$CALLS"
done
for _ in $(seq "$RUNS"); do
  measure import target/release/examples/read_perfetto "$OUT"
done

python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split())
    rows.setdefault(kv["kind"], []).append(kv)
print(f"{'':8}{'events':>10}{'MB':>8}{'secs':>8}{'MB/s':>8}{'cpu s':>8}{'MB/s cpu':>10}{'peak RSS MB':>13}{'model MB':>10}{'RSS/model':>11}")
for kind, rs in rows.items():
    size = int(rs[0]["bytes"])
    secs = statistics.median(float(r["secs"]) for r in rs)
    cpu = statistics.median(float(r["cpu_secs"]) for r in rs)
    rss = statistics.median(int(r["rss_kb"]) for r in rs) * 1024
    model = int(rs[0]["model_bytes"])
    print(f"{kind:8}{rs[0]['events']:>10}{size/1e6:>8.0f}{secs:>8.2f}{size/1e6/secs:>8.0f}{cpu:>8.2f}{size/1e6/cpu:>10.0f}{rss/1e6:>13.0f}{model/1e6:>10.0f}{rss/model:>11.2f}")
print(f"runs: {len(next(iter(rows.values())))} each (medians); export RSS includes the generated session")
PY

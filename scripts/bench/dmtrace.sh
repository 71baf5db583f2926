#!/usr/bin/env bash
# Android method-trace parsing benchmark (issue 2's quality bar).
#
# Generates a RECORDS-record (default 10 million) v3 dual-clock trace with
# the streaming TraceWriter, then parses it RUNS times (default 5) with
# tracekit's reader and with the android_trace_log crate, and prints the
# medians of: parse time inside the process, throughput, CPU time of the
# whole process (user+sys) and peak RSS (/usr/bin/time -v), plus the ratios.
#
#   scripts/bench/dmtrace.sh            # RECORDS=10000000 RUNS=5
#   RECORDS=1000000 RUNS=3 scripts/bench/dmtrace.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=${RECORDS:-10000000}
RUNS=${RUNS:-5}
OUT=${OUT:-target/bench/dmtrace-$RECORDS.trace}

cargo build --release --quiet -p tracekit-dmtrace --examples
mkdir -p "$(dirname "$OUT")"
if [ ! -f "$OUT" ]; then
  target/release/examples/gen_dmtrace "$OUT" "$RECORDS" dual
fi
SIZE=$(stat -c %s "$OUT")
echo "file: $OUT ($SIZE bytes, $RECORDS records requested)"

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for reader in read_dmtrace read_android_trace_log; do
  for _ in $(seq "$RUNS"); do
    log=$(mktemp)
    line=$(/usr/bin/time -v -o "$log" "target/release/examples/$reader" "$OUT")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    user=$(awk -F': ' '/User time/ {print $2}' "$log")
    sys=$(awk -F': ' '/System time/ {print $2}' "$log")
    echo "$line rss_kb=$rss user_s=$user sys_s=$sys" >>"$results"
    rm -f "$log"
  done
done

python3 - "$results" "$SIZE" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split())
    rows.setdefault(kv["reader"], []).append(kv)
size = int(sys.argv[2])
med = {}
print(f"{'reader':<20}{'records':>10}{'parse s':>9}{'MB/s':>8}{'cpu s':>8}{'MB/s cpu':>10}{'peak RSS MB':>13}{'RSS/file':>10}")
for name, rs in rows.items():
    secs = statistics.median(float(r["secs"]) for r in rs)
    cpu = statistics.median(float(r["user_s"]) + float(r["sys_s"]) for r in rs)
    rss = statistics.median(int(r["rss_kb"]) for r in rs) * 1024
    med[name] = (secs, cpu, rss)
    print(f"{name:<20}{rs[0]['records']:>10}{secs:>9.3f}{size/1e6/secs:>8.0f}{cpu:>8.3f}{size/1e6/cpu:>10.0f}{rss/1e6:>13.1f}{rss/size:>10.2f}")
if len(med) == 2:
    (a, b) = (med["tracekit"], med["android_trace_log"])
    print(f"ratio android_trace_log/tracekit: parse time {b[0]/a[0]:.2f}x, cpu time {b[1]/a[1]:.2f}x, peak RSS {b[2]/a[2]:.2f}x")
print(f"runs per reader: {len(next(iter(rows.values())))} (medians)")
PY

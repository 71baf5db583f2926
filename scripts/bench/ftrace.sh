#!/usr/bin/env bash
# atrace/ftrace text import benchmark (issue 11: >= 150 MB/s, peak memory
# no more than the text's size).
#
# Generates a synthetic atrace capture of MB megabytes (default 256: sched,
# wakeups, B/E slices, C counters, cpu_frequency/idle, seed 002's power
# lines; crates/ftrace/examples/gen_ftrace.rs), then imports it RUNS times
# (default 5) with tracekit_ftrace::read_path into the full model and prints
# the medians of: the import time inside the process, the throughput it
# gives, the process CPU time (user+sys) and the throughput per CPU second
# (what a quiet machine would see), and the peak RSS (/usr/bin/time -v)
# against the file size.
#
# The same capture as atrace -z output (`TRACE:` + zlib, made by Python's
# zlib at level 6) is measured too; its MB/s count the inflated text.
#
#   scripts/bench/ftrace.sh            # MB=256 RUNS=5
#   MB=512 RUNS=3 scripts/bench/ftrace.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
MB=${MB:-256}
RUNS=${RUNS:-5}
OUT=${OUT:-target/bench/ftrace-${MB}MB.txt}

cargo build --release --quiet -p tracekit-ftrace --examples
mkdir -p "$(dirname "$OUT")"
if [ ! -f "$OUT" ]; then
  target/release/examples/gen_ftrace "$OUT" "$MB"
fi
SIZE=$(stat -c %s "$OUT")
echo "file: $OUT ($SIZE bytes)"

ZOUT=${OUT%.txt}.bin
if [ ! -f "$ZOUT" ]; then
  python3 -c 'import sys, zlib; open(sys.argv[2], "wb").write(b"TRACE:\n" + zlib.compress(open(sys.argv[1], "rb").read(), 6))' "$OUT" "$ZOUT"
fi

measure() { # FILE RESULTS
  for _ in $(seq "$RUNS"); do
    log=$(mktemp)
    line=$(/usr/bin/time -v -o "$log" target/release/examples/read_ftrace "$1")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    user=$(awk -F': ' '/User time/ {print $2}' "$log")
    sys=$(awk -F': ' '/System time/ {print $2}' "$log")
    echo "$line rss_kb=$rss user_s=$user sys_s=$sys" >>"$2"
    rm -f "$log"
  done
}

results=$(mktemp)
zresults=$(mktemp)
trap 'rm -f "$results" "$zresults"' EXIT
measure "$OUT" "$results"
measure "$ZOUT" "$zresults"

for form in text compressed; do
  if [ $form = text ]; then r=$results; f=$OUT; else r=$zresults; f=$ZOUT; fi
  echo "== $form: $f ($(stat -c %s "$f") bytes)"
  python3 - "$r" "$SIZE" <<'PY'
import statistics, sys
rows = [dict(f.split("=", 1) for f in line.split()) for line in open(sys.argv[1])]
size = int(sys.argv[2])
secs = statistics.median(float(r["secs"]) for r in rows)
cpu = statistics.median(float(r["user_s"]) + float(r["sys_s"]) for r in rows)
rss = statistics.median(int(r["rss_kb"]) for r in rows) * 1024
r = rows[0]
print(f"lines {r['lines']}  used {r['used']}  skipped {r['skipped']}  unaccounted {r['unaccounted']}")
print(f"model: {r['calls']} call events, {r['sched']} sched slices, {r['counter_samples']} counter samples")
print(f"{'import s':>9}{'MB/s':>8}{'cpu s':>8}{'MB/s cpu':>10}{'peak RSS MB':>13}{'RSS/file':>10}")
print(f"{secs:>9.3f}{size/1e6/secs:>8.0f}{cpu:>8.3f}{size/1e6/cpu:>10.0f}{rss/1e6:>13.1f}{rss/size:>10.2f}")
print(f"runs: {len(rows)} (medians; MB/s and RSS/file count the {size} bytes of text)")
PY
done

#!/usr/bin/env bash
# Chrome JSON import and export benchmark (issue 10's "Measured" section).
#
# Exports a synthetic session of CALLS calls (default 10 million:
# tracekit_report::synthetic::session, three threads, dual clock) to
# Chrome JSON with tracekit's own writer (examples/gen_chrome.rs), then
#  - reads it RUNS times (default 5) with tracekit_chrome::read_path
#    (examples/read_chrome.rs), and
#  - exports the session RUNS times to /dev/null,
# and prints the medians of: in-process time and throughput, process CPU
# time (user+sys) and throughput on it, and peak RSS (/usr/bin/time -v)
# against the file and against the model the reader built.
#
#   scripts/bench/chrome.sh             # CALLS=10000000 RUNS=5
#   CALLS=1000000 RUNS=3 scripts/bench/chrome.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
CALLS=${CALLS:-10000000}
RUNS=${RUNS:-5}
OUT=${OUT:-target/bench/chrome-$CALLS.json}

cargo build --release --quiet -p tracekit-chrome --examples
mkdir -p "$(dirname "$OUT")"
if [ ! -f "$OUT" ]; then
  target/release/examples/gen_chrome "$OUT" "$CALLS"
fi
SIZE=$(stat -c %s "$OUT")
echo "file: $OUT ($SIZE bytes, $CALLS calls requested)"

results=$(mktemp)
trap 'rm -f "$results"' EXIT
measure() {
  local log line
  log=$(mktemp)
  line=$(/usr/bin/time -v -o "$log" "$@")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  user=$(awk -F': ' '/User time/ {print $2}' "$log")
  sys=$(awk -F': ' '/System time/ {print $2}' "$log")
  echo "$line rss_kb=$rss user_s=$user sys_s=$sys" >>"$results"
  rm -f "$log"
}
for _ in $(seq "$RUNS"); do
  measure target/release/examples/read_chrome "$OUT"
done
for _ in $(seq "$RUNS"); do
  measure target/release/examples/gen_chrome /dev/null "$CALLS"
done

python3 - "$results" "$SIZE" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split())
    rows.setdefault("read" if "reader" in kv else "write", []).append(kv)
size = int(sys.argv[2])
med = lambda rs, f: statistics.median(f(r) for r in rs)
reads = rows["read"]
secs = med(reads, lambda r: float(r["secs"]))
cpu = med(reads, lambda r: float(r["user_s"]) + float(r["sys_s"]))
rss = med(reads, lambda r: int(r["rss_kb"])) * 1024
model = int(reads[0]["model_bytes"])
print(f"import: {reads[0]['calls']} calls, model {model/1e6:.1f} MB")
print(f"  in-process {secs:.3f} s = {size/1e6/secs:.0f} MB/s; CPU {cpu:.3f} s = {size/1e6/cpu:.0f} MB/s")
print(f"  peak RSS {rss/1e6:.1f} MB = {rss/model:.2f}x the model, {rss/size:.3f}x the file")
writes = rows["write"]
wsecs = med(writes, lambda r: float(r["secs"]))
wbytes = int(writes[0]["bytes"])
print(f"export: {wbytes} bytes in {wsecs:.3f} s = {wbytes/1e6/wsecs:.0f} MB/s (to /dev/null, session in memory)")
print(f"runs: {len(reads)} of each (medians)")
PY

#!/usr/bin/env bash
# Cost of the progress bar (issue 18): `tracekit info` of a RECORDS-record
# (default 10 million, ~140 MB) dual-clock Android trace, RUNS times
# (default 5) in each of three ways, medians of the wall time and of the
# CPU time (user+sys, all threads: the sampler's work included; the
# figure to trust on a loaded machine):
#   piped     stderr is a pipe: no progress (what scripts see)
#   terminal  in a pseudo-terminal (util-linux `script`), the byte bar drawn
#             from the first moment (TRACEKIT_PROGRESS_DELAY_MS=0)
#   quiet     in the same terminal with --quiet
# The format crates are untouched by progress (the bar samples the file
# offset from another thread), so scripts/bench/dmtrace.sh measures the
# parser itself with and without the CLI alike.
#
#   scripts/bench/progress.sh            # RECORDS=10000000 RUNS=5
#   TRACEKIT=/usr/bin/tracekit scripts/bench/progress.sh   # an installed binary (no build)
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=${RECORDS:-10000000}
RUNS=${RUNS:-5}
OUT=${OUT:-target/bench/dmtrace-$RECORDS.trace}

if [ -z "${TRACEKIT:-}" ]; then
  cargo build --release --locked --quiet -p tracekit
fi
mkdir -p "$(dirname "$OUT")"
if [ ! -f "$OUT" ]; then
  cargo build --release --locked --quiet -p tracekit-dmtrace --examples
  target/release/examples/gen_dmtrace "$OUT" "$RECORDS" dual
fi
tk=${TRACEKIT:-$(pwd)/target/release/tracekit}
file=$(pwd)/$OUT
echo "file: $OUT ($(stat -c %s "$OUT") bytes)"

results=$(mktemp)
times=$(mktemp)
trap 'rm -f "$results" "$times"' EXIT
timed="/usr/bin/time -f '%e %U %S' -o '$times'"
for _ in $(seq "$RUNS"); do
  for mode in piped terminal quiet; do
    case $mode in
      piped) sh -c "$timed '$tk' info '$file' >/dev/null 2>&1" ;;
      terminal) TRACEKIT_PROGRESS_DELAY_MS=0 script -q -e -c "$timed '$tk' info '$file' >/dev/null" /dev/null >/dev/null </dev/null ;;
      quiet) script -q -e -c "$timed '$tk' --quiet info '$file' >/dev/null" /dev/null >/dev/null </dev/null ;;
    esac
    echo "$mode $(tail -n1 "$times")" >>"$results"
  done
done

python3 - "$results" <<'PY'
import statistics, sys
wall, cpu = {}, {}
for line in open(sys.argv[1]):
    mode, e, u, s = line.split()
    wall.setdefault(mode, []).append(float(e))
    cpu.setdefault(mode, []).append(float(u) + float(s))
bw, bc = statistics.median(wall["piped"]), statistics.median(cpu["piped"])
for mode in ["piped", "terminal", "quiet"]:
    w, c = statistics.median(wall[mode]), statistics.median(cpu[mode])
    print(f"{mode:9s} wall {w:6.3f} s ({(w / bw - 1) * 100:+5.1f}%)  cpu {c:6.3f} s ({(c / bc - 1) * 100:+5.1f}%)"
          f"  cpu runs: {' '.join(f'{x:.2f}' for x in cpu[mode])}")
PY

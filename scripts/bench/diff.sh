#!/usr/bin/env bash
# Issue 14's benchmark: `tracekit diff` of 2 × 10 runs of 10^6 calls each
# over 2,000 methods (Android traces written by the example crate's run
# generator, one method planted +10% in B), end to end through the real
# binary: opening all twenty files through the one door, the profiles, and
# the statistics. Prints medians over RUNS runs of wall time and peak RSS
# for rows by method, rows by call path, and by method with the flame graph
# outputs (--folded, --html), then deletes the generated traces (KEEP=1
# keeps them). CPU is user + system time: on a shared, loaded machine the
# wall time mostly measures waiting for a core.
#   scripts/bench/diff.sh [RUNS] [CALLS] [METHODS] [RUNS_PER_SIDE]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
calls=${2:-1000000}
methods=${3:-2000}
per_side=${4:-10}
cargo build -q --release -p tracekit
cargo build -q --release -p tracekit-diff --example gen_runs
bin=target/release/tracekit
dir=target/bench-diff
mkdir -p "$dir"
if [ ! -f "$dir/b-$(printf %02d $((per_side - 1))).trace" ]; then
  target/release/examples/gen_runs "$dir" "$per_side" "$methods" "$calls" 14 37 10 2>"$dir/gen.log"
fi
size=$(du -cb "$dir"/*.trace | tail -1 | cut -f1)
a=("$dir"/a-*.trace); b=("$dir"/b-*.trace)

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # label, command...
  local label=$1; shift
  local times=() cpus=() rss=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" "$@" >"$dir/$label.out" 2>"$dir/$label.err" || [ $? -eq 3 ]
    read -r t u s m <"$dir/time.txt"
    times+=("$t"); cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')"); rss+=("$m")
  done
  printf '%-22s median wall %6.2f s  CPU %5.2f s  peak RSS %5.0f MB  [wall %s]\n' "$label" \
    "$(printf '%s\n' "${times[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" \
    "$(( $(printf '%s\n' "${rss[@]}" | median) / 1024 ))" "$(printf '%s ' "${times[@]}")"
}
echo "inputs: 2 x $per_side traces, $calls calls and $methods methods each, $((size / 1000000)) MB in all; load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores"
measure "by method" "$bin" diff "${a[@]}" --vs "${b[@]}"
measure "by path" "$bin" diff "${a[@]}" --vs "${b[@]}" --by path
measure "method + flame graph" "$bin" diff "${a[@]}" --vs "${b[@]}" --folded "$dir/d.folded" --html "$dir/d.html"
sed -n 2p "$dir/by method.out"
grep -m1 '^regressed' "$dir/by method.out" || true
[ "${KEEP:-0}" = 1 ] || rm -f "$dir"/*.trace

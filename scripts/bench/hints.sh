#!/usr/bin/env bash
# Issue 19's benchmark: ranked hints (time-adjusted, rates, session time) and
# the call graph, end to end through the real binary on a 600 s example
# (~550k calls, 21 context items). Prints medians over RUNS runs of wall
# time and of CPU time (user+sys; the machine is shared, so CPU time is the
# steadier figure). Reading the files is included; `info` gives that alone.
#   scripts/bench/hints.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
cargo build -q --release -p tracekit
bin=target/release/tracekit
dir=target/bench-hints
mkdir -p "$dir"
[ -f "$dir/s.trace" ] || "$bin" example -o "$dir" --name s --duration 600 >/dev/null

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # label, command...
  local label=$1; shift
  local wall=() cpu=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$dir/time.txt" "$@" >/dev/null 2>&1
    read -r e u s <"$dir/time.txt"
    wall+=("$e"); cpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')")
  done
  printf '%-34s wall median %6.2f s  cpu median %6.2f s  [cpu: %s]\n' "$label" \
    "$(printf '%s\n' "${wall[@]}" | median)" "$(printf '%s\n' "${cpu[@]}" | median)" "$(printf '%s ' "${cpu[@]}")"
}
measure "read (info)" "$bin" info "$dir/s"
measure "problems --brb --json" "$bin" problems "$dir/s" --brb --json
measure "problems onDraw when portrait" "$bin" problems "$dir/s" --method LayerView.onDraw --when "Screen orientation == 1" --json
measure "calltree --format svg --when" "$bin" calltree "$dir/s" --format svg --when "Screen orientation == 1"
measure "calltree --format dot --when" "$bin" calltree "$dir/s" --format dot --when "Screen orientation == 1"

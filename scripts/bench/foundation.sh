#!/usr/bin/env bash
# Issue 2's benchmark: parse a ~10-million-record v3 dual-clock trace and
# compute its full profile, end to end through the real binary.
# Prints, as medians over RUNS runs: parse-only time (tracekit info), parse +
# profile time (tracekit profile --json), parse throughput, peak RSS and its
# ratio to the file size.
#   scripts/bench/foundation.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
cargo build -q --release -p tracekit
bin=target/release/tracekit
dir=target/bench-foundation
mkdir -p "$dir"
# 6400 simulated seconds of the example give about ten million records.
[ -f "$dir/big.trace" ] || "$bin" example -o "$dir" --name big --duration 6400 >/dev/null
size=$(stat -c %s "$dir/big.trace")
records=$(( (size - $(grep -abo '\*end' "$dir/big.trace" | head -1 | cut -d: -f1) - 5 - 32) / 14 ))

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # label, command...
  local label=$1; shift
  local times=() rss=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" >/dev/null 2>&1
    read -r t m <"$dir/time.txt"
    times+=("$t"); rss+=("$m")
  done
  local mt mr
  mt=$(printf '%s\n' "${times[@]}" | median)
  mr=$(printf '%s\n' "${rss[@]}" | median)
  printf '%-16s median %6.2f s  peak RSS %5.0f MB (%.2fx file)  [%s]\n' "$label" "$mt" "$((mr / 1024))" \
    "$(awk -v m="$mr" -v s="$size" 'BEGIN{print m*1024/s}')" "$(printf '%s ' "${times[@]}")"
  echo "$mt" >"$dir/$label.median"
}
echo "file: $dir/big.trace, $((size / 1000000)) MB, ~$records records (v3, dual clock)"
measure parse "$bin" info "$dir/big"
measure parse+profile "$bin" profile "$dir/big" --json
p=$(cat "$dir/parse.median"); pp=$(cat "$dir/parse+profile.median")
printf 'parse throughput %.0f MB/s; profile alone %.2f s\n' "$(awk -v s="$size" -v p="$p" 'BEGIN{print s/1e6/p}')" "$(awk -v a="$pp" -v b="$p" 'BEGIN{print a-b}')"

#!/usr/bin/env bash
# `tracekit replay` of recordings of growing size (issue 15: analysis that
# streams): wall time and peak RSS of the full listing (to /dev/null) of
# Debian's Lua 5.4 built with -finstrument-functions
# (scripts/deps/interp.sh) running scripts/bench/interp_workload.lua at
# each of SCALES (default "1 3 9"), with `uftrace replay` of uftrace's
# recording of the same run beside it (skipped above PEER_MAX_SCALE,
# default 3). Each recording is deleted after it was measured.
set -euo pipefail
cd "$(dirname "$0")/../.."
SCALES=${SCALES:-"1 3 9"}
PEER_MAX_SCALE=${PEER_MAX_SCALE:-3}
cargo build --release -q -p tracekit -p tracekit-rt
T=$PWD/target/release/tracekit
W=$(mktemp -d "${BENCH_DIR:-/tmp}/tracekit-replay.XXXXXX")
trap 'rm -rf "$W"' EXIT
LUA=$(bash scripts/deps/interp.sh)
timed() {  # prints "wall_s peak_MB" of CMD (its stdout discarded)
  /usr/bin/time -o "$W/time.txt" -f "%e %M" "$@" >/dev/null 2>"$W/stderr.txt" || true
  tail -1 "$W/time.txt" | awk '{printf "%s %d\n", $1, $2 / 1024}'
}
echo "## replay_memory.sh $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| Lua scale | events | tracekit replay: wall s | peak RSS MB | uftrace replay: wall s | peak RSS MB |"
echo "|---|---|---|---|---|---|"
for scale in $SCALES; do
  rm -rf "$W/rec"
  "$T" record -o "$W/rec" -- "$LUA" scripts/bench/interp_workload.lua "$scale" >/dev/null 2>&1
  events=$("$T" replay "$W/rec" --stats | tail -1 | awk '{print $2}')
  read -r tk_s tk_mb < <(timed "$T" replay "$W/rec")
  rm -rf "$W/rec"
  uf_s="—" uf_mb="—"
  if [[ $scale -le $PEER_MAX_SCALE ]]; then
    uftrace record -d "$W/uftrace.data" "$LUA" scripts/bench/interp_workload.lua "$scale" >/dev/null 2>&1
    read -r uf_s uf_mb < <(timed uftrace replay -d "$W/uftrace.data" --no-pager)
    rm -rf "$W/uftrace.data"
  fi
  echo "| $scale | $events | $tk_s | $tk_mb | $uf_s | $uf_mb |"
done

#!/usr/bin/env bash
# Native recorder end to end (issue 15), side by side in one run: for each
# workload, the wall time of the whole command (start to exit), events
# lost, peak RSS and bytes on disk per event of
#   - the program with TSC-only hooks (scripts/bench/tsc_floor.c: the floor),
#   - `tracekit record` (defaults: context sampler on, waits on a full ring),
#   - `uftrace record`, and LTTng-UST's cyg-profile-fast library;
# then the time and peak RSS of `tracekit replay --stats`, `tracekit
# profile` and `uftrace report` on those recordings.
# Workloads: scripts/bench/native_loop.c with CALLS (default "1e7 1e8
# 1e9") and Debian's Lua 5.4 built with -finstrument-functions
# (scripts/deps/interp.sh) running scripts/bench/interp_workload.lua
# LUA_SCALE times. Peers are skipped for call counts above PEER_MAX
# (default 1e8: uftrace writes 16 bytes per event, 32 GB at 1e9), and on
# Lua when LUA_PEERS=0 (default 1).
# BASELINE=/path/to/another/tracekit adds its `record` to every round
# (interleaved with the others, same flags), e.g. the build before a change.
# Each recording is deleted right after it was measured.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-1}
CALLS=${CALLS:-"10000000 100000000 1000000000"}
PEER_MAX=${PEER_MAX:-100000000}
LUA_SCALE=${LUA_SCALE:-9}
LUA_PEERS=${LUA_PEERS:-1}
cargo build --release -q -p tracekit -p tracekit-rt
T=$PWD/target/release/tracekit
W=$(mktemp -d "${BENCH_DIR:-/tmp}/tracekit-e2e.XXXXXX")
cc -O2 -finstrument-functions -pthread -o "$W/loop" scripts/bench/native_loop.c
cc -O2 -shared -fPIC -ftls-model=initial-exec -o "$W/tsc_floor.so" scripts/bench/tsc_floor.c
LUA=$(bash scripts/deps/interp.sh)
LTTNG_FAST=$(ls /usr/lib/*/liblttng-ust-cyg-profile-fast.so.1 2>/dev/null | head -1 || true)
LTTNG_STARTED=
if [[ -n $LTTNG_FAST ]] && command -v lttng >/dev/null; then
  if ! pgrep -x lttng-sessiond >/dev/null; then
    lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1 && LTTNG_STARTED=1 && sleep 1
  fi
  pgrep -x lttng-sessiond >/dev/null || LTTNG_FAST=
fi
cleanup() {
  [[ -n $LTTNG_STARTED ]] && pkill -x lttng-sessiond || true
  rm -rf "$W"
}
trap cleanup EXIT

# timed CMD…: runs CMD under GNU time; prints "wall_s peak_kb" (wall time
# to the millisecond, from the clock around it: GNU time's has 10 ms) and
# keeps the CPU seconds (user + system, children included) in $W/cpu.txt.
timed() {
  local out="$W/time.txt" t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -o "$out" -f "%e %M %U %S" "$@" >"$W/stdout.txt" 2>"$W/stderr.txt" || true
  t1=$(date +%s%N)
  tail -1 "$out" | awk '{printf "%.2f\n", $3 + $4}' >"$W/cpu.txt"
  tail -1 "$out" | awk -v ns=$((t1 - t0)) '{printf "%.3f %s\n", ns / 1e9, $2}'
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
row() { printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$@" "$(cat "$W/cpu.txt" 2>/dev/null)"; }

# record_once BIN DIR EVENTS CMD…: `BIN record` of CMD into DIR (made
# afresh), timed; prints "wall_s peak_kb cpu_s events_lost bytes_per_event".
record_once() {
  local bin=$1 dir=$2 events=$3 r; shift 3
  rm -rf "$dir"
  r=$(timed "$bin" record -o "$dir" -- "$@")
  echo "$r $(cat "$W/cpu.txt") $("$bin" replay "$dir" --stats | tail -1 | awk '{print $5}')" \
    "$(du -sb "$dir" | awk -v e="$events" '{printf "%.2f", $1 / e}')"
}

measure() {  # measure NAME EVENTS PEERS CMD…
  local name=$1 events=$2 peers=$3; shift 3
  echo
  echo "### $name ($events events)"
  echo
  echo "| tool | wall s (median of $RUNS) | × TSC-only | events lost | peak RSS MB | bytes/event on disk | CPU s (last run) |"
  echo "|---|---|---|---|---|---|---|"
  local tsc="" tk="" uf="" lt="" pairs="" r t w
  local tk_rss="" tk_lost="" tk_bytes="" tk_cpu="" tsc_cpu=""
  local base="" base_pairs="" base_rss="" base_lost="" base_bytes="" base_cpu=""
  # TSC-only and tracekit runs alternate, so drift hits both alike; each
  # pair's ratio is kept too.
  for _ in $(seq "$RUNS"); do
    r=$(timed env LD_PRELOAD="$W/tsc_floor.so" "$@"); t=${r%% *}; tsc+="$t "
    tsc_cpu=$(cat "$W/cpu.txt")
    read -r w tk_rss tk_cpu tk_lost tk_bytes <<<"$(record_once "$T" "$W/rec" "$events" "$@")"
    tk+="$w "; pairs+="$(awk -v a="$w" -v b="$t" 'BEGIN{printf "%.4f", a/b}') "
    if [[ -n ${BASELINE:-} ]]; then
      read -r w base_rss base_cpu base_lost base_bytes <<<"$(record_once "$BASELINE" "$W/rec-base" "$events" "$@")"
      base+="$w "; base_pairs+="$(awk -v a="$w" -v b="$t" 'BEGIN{printf "%.4f", a/b}') "
      rm -rf "$W/rec-base"
    fi
  done
  local tsc_m tk_m pair_m
  tsc_m=$(echo $tsc | tr ' ' '\n' | median)
  tk_m=$(echo $tk | tr ' ' '\n' | median)
  pair_m=$(echo $pairs | tr ' ' '\n' | median)
  echo "$tsc_cpu" >"$W/cpu.txt"
  row "TSC-only hooks" "$tsc_m" "1.00" "—" "—" "—"
  echo "$tk_cpu" >"$W/cpu.txt"
  row "tracekit record" "$tk_m" "$(awk -v a="$tk_m" -v b="$tsc_m" 'BEGIN{printf "%.2f", a/b}') (paired $(printf %.2f "$pair_m"))" "$tk_lost" "$((tk_rss / 1024))" "$tk_bytes"
  if [[ -n ${BASELINE:-} ]]; then
    local base_m base_pair_m
    base_m=$(echo $base | tr ' ' '\n' | median)
    base_pair_m=$(echo $base_pairs | tr ' ' '\n' | median)
    echo "$base_cpu" >"$W/cpu.txt"
    row "baseline record ($BASELINE)" "$base_m" "$(awk -v a="$base_m" -v b="$tsc_m" 'BEGIN{printf "%.2f", a/b}') (paired $(printf %.2f "$base_pair_m"))" "$base_lost" "$((base_rss / 1024))" "$base_bytes"
  fi
  local uf_rss="" uf_bytes=""
  if [[ $peers == 1 ]]; then
    for _ in $(seq "$RUNS"); do
      rm -rf "$W/uftrace.data"
      r=$(timed uftrace record -d "$W/uftrace.data" "$@"); uf+="${r%% *} "; uf_rss=${r##* }
      uf_bytes=$(du -sb "$W/uftrace.data" | awk -v e="$events" '{printf "%.2f", $1 / e}')
    done
    local uf_m; uf_m=$(echo $uf | tr ' ' '\n' | median)
    row "uftrace record" "$uf_m" "$(awk -v a="$uf_m" -v b="$tsc_m" 'BEGIN{printf "%.2f", a/b}')" "(not reported)" "$((uf_rss / 1024))" "$uf_bytes"
    if [[ -n $LTTNG_FAST ]]; then
      local lt_lost="" lt_bytes=""
      for _ in $(seq "$RUNS"); do
        local s=tke2e$$
        rm -rf "$W/lttng"
        lttng create "$s" --output="$W/lttng" >/dev/null
        lttng enable-event -s "$s" -u 'lttng_ust_cyg_profile_fast:*' >/dev/null
        lttng start "$s" >/dev/null
        r=$(timed env LD_PRELOAD="$LTTNG_FAST" "$@"); lt+="${r%% *} "
        lt_lost=$(lttng stop "$s" 2>&1 | grep -o "[0-9]* events were discarded" | awk "{print \$1}" || true)
        lttng destroy "$s" >/dev/null
        lt_bytes=$(du -sb "$W/lttng" | awk -v e="$events" '{printf "%.2f", $1 / e}')
      done
      local lt_m; lt_m=$(echo $lt | tr ' ' '\n' | median)
      row "LTTng-UST (session daemon not counted)" "$lt_m" "$(awk -v a="$lt_m" -v b="$tsc_m" 'BEGIN{printf "%.2f", a/b}')" "${lt_lost:-0}" "—" "$lt_bytes"
      rm -rf "$W/lttng"
    fi
  fi
  echo
  echo "| analysis | wall s | peak RSS MB |"
  echo "|---|---|---|"
  r=$(timed "$T" replay "$W/rec" --stats); echo "| tracekit replay --stats | ${r%% *} | $((${r##* } / 1024)) |"
  r=$(timed "$T" profile "$W/rec"); echo "| tracekit profile | ${r%% *} | $((${r##* } / 1024)) |"
  rm -rf "$W/rec"
  if [[ $peers == 1 ]]; then
    r=$(timed uftrace report -d "$W/uftrace.data" --no-pager); echo "| uftrace report | ${r%% *} | $((${r##* } / 1024)) |"
    rm -rf "$W/uftrace.data"
  fi
}

echo "## native_e2e.sh $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $CALLS; do
  n=$(printf "%.0f" "$n")
  peers=0; [[ $n -le $(printf "%.0f" "$PEER_MAX") ]] && peers=1
  measure "native_loop, $n calls" $((2 * n + 2)) "$peers" "$W/loop" "$n"
done
[[ ${LUA_SCALE} == 0 ]] && exit 0
# The interpreter's events: counted from a tracekit recording of it.
"$T" record --context none -o "$W/count" -- "$LUA" scripts/bench/interp_workload.lua "$LUA_SCALE" >/dev/null 2>&1
lua_events=$("$T" replay "$W/count" --stats | tail -1 | awk '{print $2 + $5}')
rm -rf "$W/count"
measure "Lua 5.4 (Debian source, -finstrument-functions), interp_workload.lua $LUA_SCALE" "$lua_events" "$LUA_PEERS" "$LUA" scripts/bench/interp_workload.lua "$LUA_SCALE"

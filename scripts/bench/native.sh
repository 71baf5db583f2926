#!/usr/bin/env bash
# Native recorder benchmarks (issue 4), measured side by side in one run:
#  1. ns per traced call (entry + exit) on a tight loop: tracekit against
#     uftrace on the same binary, plus an unselected function and a process
#     where tracing is off;
#  2. 8 threads x 10 M calls: every event is recorded or counted as lost;
#  3. the context sampler's CPU cost at a 10 Hz period.
# Figures are medians over RUNS runs (default 5). The loop reports its own
# thread-CPU time per call, so time spent descheduled on a busy machine does
# not count; the overhead of a tool is its median minus the untraced median.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
N=${N:-10000000}
THREADS_N=${THREADS_N:-10000000}
SAMPLER_SECONDS=${SAMPLER_SECONDS:-20}
PARTS=${PARTS:-calls,threads,sampler}   # which sections to run

cargo build --release -q -p tracekit -p tracekit-rt
T=$PWD/target/release/tracekit
RT=$PWD/target/release/libtracekit_rt.so
W=$(mktemp -d /tmp/tracekit-bench-native.XXXXXX)
cc -O2 -finstrument-functions -pthread -o "$W/loop" scripts/bench/native_loop.c
cc -O2 -shared -fPIC -ftls-model=initial-exec -o "$W/tsc_floor.so" scripts/bench/tsc_floor.c

# LTTng-UST's cyg-profile library (the "fast" variant: addresses only), when
# its session daemon can run here (scripts/deps/native.apt installs it; a
# user-space-only daemon needs no kernel module). We start one if none runs.
LTTNG_FAST=$(ls /usr/lib/*/liblttng-ust-cyg-profile-fast.so.1 2>/dev/null | head -1 || true)
LTTNG_STARTED=
if [[ -n $LTTNG_FAST ]] && command -v lttng >/dev/null; then
  if ! pgrep -x lttng-sessiond >/dev/null; then
    lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1 && LTTNG_STARTED=1 && sleep 1
  fi
  pgrep -x lttng-sessiond >/dev/null || LTTNG_FAST=
else
  LTTNG_FAST=
fi
lttng_run() {  # one traced run of the loop under a fresh LTTng session
  local s=tkbench$$
  lttng create "$s" --output="$W/lttng" >/dev/null
  lttng enable-event -s "$s" -u 'lttng_ust_cyg_profile_fast:*' >/dev/null
  lttng start "$s" >/dev/null
  LD_PRELOAD=$LTTNG_FAST "$W/loop" "$N" | cpu_of
  lttng stop "$s" >/dev/null
  lttng destroy "$s" >/dev/null
  rm -rf "$W/lttng"
}
cleanup() {
  [[ -n $LTTNG_STARTED ]] && pkill -x lttng-sessiond || true
  rm -rf "$W"
}
trap cleanup EXIT

cpu_of() { awk '/cpu_ns_per_call/ {print $2}'; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

if [[ ,$PARTS, == *,calls,* ]]; then
declare -A samples
for r in $(seq "$RUNS"); do
  samples[untraced]+="$("$W/loop" "$N" | cpu_of) "
  samples[disabled]+="$(LD_PRELOAD=$RT "$W/loop" "$N" | cpu_of) "
  samples[tsc_floor]+="$(LD_PRELOAD=$W/tsc_floor.so "$W/loop" "$N" | cpu_of) "
  samples[tracekit]+="$("$T" record --context none -o "$W/rec" -- "$W/loop" "$N" 2>/dev/null | cpu_of) "
  samples[tracekit_order]+="$("$T" record --clock order --context none -o "$W/rec" -- "$W/loop" "$N" 2>/dev/null | cpu_of) "
  samples[unselected]+="$("$T" record --filter main --context none -o "$W/rec" -- "$W/loop" "$N" 2>/dev/null | cpu_of) "
  samples[uftrace]+="$(uftrace record -d "$W/uftrace.data" "$W/loop" "$N" | cpu_of) "
  if [[ -n $LTTNG_FAST ]]; then samples[lttng_ust]+="$(lttng_run) "; fi
done

echo "== ns per call (thread CPU), $N calls, median of $RUNS runs"
base=$(echo "${samples[untraced]}" | tr ' ' '\n' | grep . | median)
printf "%-34s %10s %12s   %s\n" "configuration" "median" "overhead" "runs"
kinds="untraced disabled unselected tracekit_order tsc_floor tracekit uftrace"
if [[ -n $LTTNG_FAST ]]; then kinds+=" lttng_ust"; else echo "(LTTng-UST not measured: no liblttng-ust-cyg-profile-fast or session daemon)"; fi
for k in $kinds; do
  m=$(echo "${samples[$k]}" | tr ' ' '\n' | grep . | median)
  over=$(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2f", a - b}')
  printf "%-34s %10s %12s   %s\n" "$k" "$m" "$over" "${samples[$k]}"
  declare "over_$k=$over"
done
awk -v t="$over_tracekit" -v u="$over_uftrace" 'BEGIN {printf "uftrace / tracekit overhead: %.2fx\n", u / t}'
if [[ -n $LTTNG_FAST ]]; then
  awk -v t="$over_tracekit" -v u="$over_lttng_ust" 'BEGIN {printf "LTTng-UST / tracekit overhead: %.2fx\n", u / t}'
fi
awk -v f="$over_tsc_floor" -v u="$over_uftrace" 'BEGIN {printf "uftrace / tsc_floor overhead: %.2fx (the most any tracer reading the TSC per event can reach)\n", u / f}'
awk -v t="$over_tracekit" -v f="$over_tsc_floor" 'BEGIN {printf "tracekit above tsc_floor: %.2f ns per call\n", t - f}'
fi

if [[ ,$PARTS, == *,threads,* ]]; then
echo
echo "== 8 threads x $THREADS_N calls: recorded + lost must equal $((2 + 2 * 8 * THREADS_N))"
for overflow in drop wait; do
  out=$("$T" record --overflow "$overflow" --context none -o "$W/rec8" -- "$W/loop" "$THREADS_N" 8 2>/dev/null)
  total=$("$T" replay "$W/rec8" --stats | tail -1)
  echo "overflow=$overflow: $total; loop: $out"
  rec=$(echo "$total" | awk '{print $2}'); lost=$(echo "$total" | awk '{print $5}')
  if [ $((rec + lost)) -ne $((2 + 2 * 8 * THREADS_N)) ]; then echo "MISMATCH: uncounted loss"; exit 1; fi
  rm -rf "$W/rec8"
done
fi

if [[ ,$PARTS, == *,sampler,* ]]; then
echo
echo "== context sampler at 10 Hz for $SAMPLER_SECONDS s (all sources)"
for r in $(seq 3); do
  sleep "$SAMPLER_SECONDS" | "$T" context-sampler --out "$W/ctx.jsonl" --sources cpu,memory,network,battery,screen,thermal,cpufreq \
      --period-ms 100 --proc-root /proc --sys-root /sys --pid $$ &
  pid=$!
  sleep 1
  spid=$(pgrep -n -f "context-sampler --out $W/ctx.jsonl" || true)
  ticks=0
  while kill -0 "$spid" 2>/dev/null; do
    ticks=$(awk '{print $14 + $15}' "/proc/$spid/stat" 2>/dev/null || echo "$ticks")
    sleep 0.5
  done
  wait "$pid" || true
  hz=$(getconf CLK_TCK)
  lines=$(wc -l <"$W/ctx.jsonl")
  awk -v t="$ticks" -v hz="$hz" -v s="$SAMPLER_SECONDS" -v l="$lines" \
    'BEGIN {printf "run: %.2f%% of one core (%d ticks of 1/%d s over %d s, %d lines)\n", 100 * t / hz / s, t, hz, s, l}'
done
fi

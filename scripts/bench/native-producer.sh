#!/usr/bin/env bash
# What `tracekit record` costs the traced program itself (issue 15): the
# synthetic loop (scripts/bench/native_loop.c) reports its own thread-CPU
# ns per call, so the drainer on the other core and the recorder's start
# and end are left out. ROUNDS rounds (default 9), each running the
# TSC-only hooks then every variant, interleaved so drift hits all alike;
# prints each one's median and the median of its per-round ratio to the
# TSC-only run ("paired").
#
# A second floor runs beside them, "store-only" (scripts/bench/store_floor.c:
# hooks that store each 16-byte record into a thread-local ring nobody
# reads, so no drainer and no recorder).
#
# VARIANTS (default: this checkout's release build) lists directories that
# each hold a `tracekit` and its `libtracekit_rt.so`, to compare builds:
#   VARIANTS="/tmp/old /tmp/new" scripts/bench/native-producer.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-9}
CALLS=${CALLS:-30000000}
cargo build --release -q -p tracekit -p tracekit-rt
VARIANTS=${VARIANTS:-$PWD/target/release}
W=$(mktemp -d "${BENCH_DIR:-/tmp}/tracekit-producer.XXXXXX")
trap 'rm -rf "$W"' EXIT
cc -O2 -finstrument-functions -pthread -o "$W/loop" scripts/bench/native_loop.c
cc -O2 -shared -fPIC -ftls-model=initial-exec -o "$W/tsc_floor.so" scripts/bench/tsc_floor.c
cc -O2 -shared -fPIC -ftls-model=initial-exec -o "$W/store_floor.so" scripts/bench/store_floor.c
ns_per_call() { awk '/cpu_ns_per_call/ {print $2}' | tail -1; }
for _ in $(seq "$ROUNDS"); do
  printf 'tsc-only %s\n' "$(LD_PRELOAD="$W/tsc_floor.so" "$W/loop" "$CALLS" | ns_per_call)" >>"$W/runs"
  printf 'store-only %s\n' "$(LD_PRELOAD="$W/store_floor.so" "$W/loop" "$CALLS" | ns_per_call)" >>"$W/runs"
  for v in $VARIANTS; do
    rm -rf "$W/rec"
    printf '%s %s\n' "$v" "$(TRACEKIT_RT="$v/libtracekit_rt.so" "$v/tracekit" record -o "$W/rec" -- "$W/loop" "$CALLS" 2>/dev/null | ns_per_call)" >>"$W/runs"
  done
done
echo "loop of $CALLS calls, $ROUNDS rounds: the loop's own CPU ns per call"
echo
echo "| run | median ns/call | × TSC-only | paired × TSC-only |"
echo "|---|---|---|---|"
awk '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  $1 == "tsc-only" { round++; floor = $2 }
  { n[$1]++; v[$1, n[$1]] = $2; r[$1, n[$1]] = $2 / floor; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END {
    for (i = 1; i <= k; i++) { m = order[i]; for (j = 1; j <= n[m]; j++) { x[j] = v[m, j]; y[j] = r[m, j] } ; med[m] = median(x, n[m]); pr[m] = median(y, n[m]) }
    for (i = 1; i <= k; i++) { m = order[i]; printf "| %s | %.2f | %.3f | %.3f |\n", m, med[m], med[m] / med["tsc-only"], pr[m] }
  }' "$W/runs"

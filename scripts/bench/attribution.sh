#!/usr/bin/env bash
# Issue 12's two measured goals, each the median of RUNS runs (wall and this
# thread's CPU time, since the machine is shared):
# - attribution of a CALLS-call method trace (4 threads, dual clock, depth
#   up to 8, 2,000 methods) against a 100 Hz power track, per method;
# - the linear power model fitted on SAMPLES meter samples (4 CPUs in two
#   clusters with frequency and idle tracks, screen brightness; 2% noise).
#   CALLS=10000000 SAMPLES=1000000 RUNS=5 scripts/bench/attribution.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
CALLS=${CALLS:-10000000}
SAMPLES=${SAMPLES:-1000000}
RUNS=${RUNS:-5}
cargo build --release --locked -q -p tracekit-attribution --example bench_attribution \
  -p tracekit-powermodel --example bench_fit
target/release/examples/bench_attribution "$CALLS" "$RUNS"
target/release/examples/bench_fit "$SAMPLES" "$RUNS"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

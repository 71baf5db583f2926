#!/usr/bin/env bash
# Export throughput (issue 10): speedscope, Firefox processed profile and
# folded stacks written from a synthetic browser-like session of CALLS calls
# into a byte-counting sink; medians over RUNS runs, as a Markdown table for
# BENCHMARKS.md. Peak memory of the whole run is printed by /usr/bin/time.
#
#   scripts/bench/export.sh [RUNS] [CALLS]     (default: 5 10000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
calls=${2:-10000000}
cargo build --release --locked -q -p tracekit-export --example export_bench
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "peak RSS %M kB, %e s elapsed" target/release/examples/export_bench "$runs" "$calls"
else
  target/release/examples/export_bench "$runs" "$calls"
fi

#!/usr/bin/env bash
# Issue 3's core figures (no JVM): trace sizes of BLPP, PAP and AdapTracer on
# synthetic CFGs (deterministic), then encode/decode throughput RUNS times.
#   scripts/bench/paths-core.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
cargo build -q --release -p tracekit-paths --examples
echo "## sizes"
target/release/examples/sizes
for i in $(seq "$runs"); do
    echo "## throughput, run $i"
    target/release/examples/throughput
done

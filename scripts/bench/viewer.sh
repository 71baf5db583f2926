#!/usr/bin/env bash
# Viewer benchmark: time to first paint of the HTML report and of the web UI
# (headless Chromium, fresh profile per run), the report's size, and the UI's
# level-of-detail answer times, for synthetic sessions of 10^5, 10^6 and 10^7
# calls. Prints a Markdown table (medians over RUNS runs) for BENCHMARKS.md.
#
#   scripts/bench/viewer.sh [RUNS] [CALLS...]     (default: 3 100000 1000000 10000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup
runs=${1:-3}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000 10000000)
cargo run --release --locked -q -p tracekit-ui --example viewer_bench -- "$runs" "${sizes[@]}"

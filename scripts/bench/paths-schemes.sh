# Sourced by the path-profiling benchmarks (paths-real.sh, paths-decode.sh,
# paths-threads.sh, paths-coder.sh): their common setup, and the `tracekit
# paths instrument` options of each scheme they name.
# shellcheck shell=bash

# Makes the output directory $1, goes to the checkout ($root), installs the
# JVM tools and builds the release binary, whose path it sets in $tk.
paths_bench_setup() {
  mkdir -p "$1"
  cd "$root"
  bash scripts/deps/jvm.sh
  cargo build --release -p tracekit >&2
  tk="$root/target/release/tracekit"
}

flags() {
  case $1 in
    raw|blpp|pap) echo "--scheme $1" ;;
    adaptracer) echo "--scheme adaptracer --context none" ;;
    adaptracer-stream) echo "--scheme adaptracer --stream" ;;
    adaptracer-context) echo "" ;; # the default
  esac
}

# Sourced by the path-profiling benchmarks (paths-real.sh, paths-floor.sh,
# paths-decode.sh, paths-threads.sh, paths-coder.sh): their common setup,
# the real workloads they run, and the `tracekit paths instrument` options
# of each scheme they name.
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

# Sets rows to the workloads named in $WORKLOADS (rhino, hsqldb, h2, suite),
# one "name|jar to instrument|class path with @JAR@ for it|main class and
# arguments" each. Uses $root, RHINO_N, ROWS, SIZE and SUITE.
paths_workload_rows() {
  local build="$root/workloads/jvm/build" w s
  rows=()
  for w in $WORKLOADS; do
    case $w in
      rhino) rows+=("Rhino|/usr/share/java/js.jar|@JAR@|org.mozilla.javascript.tools.shell.Main -opt -1 $root/workloads/jvm/js/bench.js $RHINO_N") ;;
      hsqldb) rows+=("HSQLDB|/usr/share/java/hsqldb1.8.0.jar|$build/tkreal.jar:@JAR@|tkreal.DbBench jdbc:hsqldb:mem:bench $ROWS") ;;
      h2) rows+=("H2|/usr/share/java/h2.jar|$build/tkreal.jar:@JAR@|tkreal.DbBench jdbc:h2:mem:bench $ROWS") ;;
      suite) for s in $SUITE; do rows+=("$s|$build/tkbench.jar|@JAR@|tkbench.$s $SIZE"); done ;;
    esac
  done
}

# The median of the numbers on stdin (the upper one of an even count).
median() {
  sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

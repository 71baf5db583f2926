#!/usr/bin/env bash
# The JVM path runtime's coder thread alone (issue 21): record buffers as
# the probes fill them, coded by the real Sink and RecordCoder under each
# scheme (HSQLDB's instrumented tables, so the method ids and head widths
# are a real program's), without the program. Prints nanoseconds per record
# for one-long records (one-path methods) and a half-and-half mix with
# two-long records (BLPP and PAP only: under raw and AdapTracer a register
# is a path's choice digits, which random ones are not); the last quarters
# are the coder at full speed.
#
#   scripts/bench/paths-coder.sh [OUT_DIR]
#
# Environment: BATCHES (16 K-long buffers per run, default 4096), SCHEMES
# (default "raw blpp pap adaptracer adaptracer-stream"; the context stream's
# model needs real histories, see paths-threads.sh), WIDTH (default 64).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/bench-paths-coder}
BATCHES=${BATCHES:-4096}
SCHEMES=${SCHEMES:-"raw blpp pap adaptracer adaptracer-stream"}
WIDTH=${WIDTH:-64}
# shellcheck source=scripts/bench/paths-schemes.sh
source "$root/scripts/bench/paths-schemes.sh"
paths_bench_setup "$out"
for scheme in $SCHEMES; do
  jar="$out/hsqldb-$scheme.jar"
  classes="$out/classes-$scheme"
  # shellcheck disable=SC2046
  "$tk" --quiet paths instrument /usr/share/java/hsqldb1.8.0.jar -o "$jar" --width "$WIDTH" $(flags "$scheme")
  rm -rf "$classes" && mkdir -p "$classes"
  (cd "$classes" && unzip -qo "$jar" 'tracekit/*')
  javac -nowarn -cp "$classes" -d "$classes" "$root/workloads/jvm/bench/tracekit/rt/CoderBench.java"
  kinds=one
  case $scheme in blpp|pap) kinds="one mixed" ;; esac
  for kind in $kinds; do
    echo "$scheme: $(java -cp "$classes:$jar" tracekit.rt.CoderBench "$BATCHES" "$kind" /dev/null | tail -1)"
  done
done

#!/usr/bin/env bash
# Builds the Java workloads of the path-profiling benchmarks (issue 3):
# workloads/jvm/src -> workloads/jvm/build/tkbench.jar. Idempotent: does
# nothing when the jar is newer than every source.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src="$root/workloads/jvm/src"
out="$root/workloads/jvm/build"
jar="$out/tkbench.jar"
if [ -f "$jar" ] && [ -z "$(find "$src" -name '*.java' -newer "$jar" | head -1)" ]; then
  exit 0
fi
command -v javac >/dev/null || { echo "jvm.sh: javac not found (apt package openjdk-17-jdk-headless)" >&2; exit 1; }
rm -rf "$out/classes"
mkdir -p "$out/classes"
find "$src" -name '*.java' -print0 | sort -z | xargs -0 javac -g --release 17 -nowarn -d "$out/classes"
(cd "$out/classes" && jar --create --file "$jar.tmp" --main-class tkbench.Suite .)
mv "$jar.tmp" "$jar"
echo "jvm.sh: built $jar" >&2

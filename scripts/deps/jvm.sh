#!/usr/bin/env bash
# Builds the Java workloads of the path-profiling benchmarks (issues 3, 21):
# workloads/jvm/src -> workloads/jvm/build/tkbench.jar and
# workloads/jvm/real -> workloads/jvm/build/tkreal.jar (the JDBC driver of
# the database workloads). Idempotent: does nothing when a jar is newer than
# every source.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src="$root/workloads/jvm/src"
out="$root/workloads/jvm/build"
jar="$out/tkbench.jar"
real="$root/workloads/jvm/real"
realjar="$out/tkreal.jar"
if [ ! -f "$realjar" ] || [ -n "$(find "$real" -name '*.java' -newer "$realjar" | head -1)" ]; then
  command -v javac >/dev/null || { echo "jvm.sh: javac not found (apt package openjdk-17-jdk-headless)" >&2; exit 1; }
  rm -rf "$out/real-classes"
  mkdir -p "$out/real-classes"
  find "$real" -name '*.java' -print0 | sort -z | xargs -0 javac -g --release 17 -nowarn -d "$out/real-classes"
  (cd "$out/real-classes" && jar --create --file "$realjar.tmp" .)
  mv "$realjar.tmp" "$realjar"
  echo "jvm.sh: built $realjar" >&2
fi
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

#!/usr/bin/env bash
# Cross-compiles the emulator-profiling workloads (workloads/emu/) for every
# ISA into target/workloads/emu/<arch>/: the assembly programs, the C suite
# and the mini JIT statically linked so plain qemu-<arch> runs them, and the
# JNI library libtkkernels.so (the suite's kernels for tkbench.emu.Kernels)
# as a shared library for a guest JVM. Idempotent: only stale outputs are
# rebuilt.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src="$root/workloads/emu"
out="$root/target/workloads/emu"

declare -A cc=(
  [arm]=arm-linux-gnueabihf-gcc
  [mips]=mipsel-linux-gnu-gcc
  [aarch64]=aarch64-linux-gnu-gcc
  [x86_64]=gcc
)

# build OUTPUT FLAGS... -- INPUTS...: rebuilds when an input is newer.
stale() {
  local target=$1; shift
  [ -e "$target" ] || return 0
  for f in "$@"; do [ "$f" -nt "$target" ] && return 0; done
  return 1
}

jdk_include=""
if command -v javac >/dev/null; then
  jdk_include="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")/include"
  [ -f "$jdk_include/jni.h" ] || jdk_include=""
fi
[ -n "$jdk_include" ] || echo "emu.sh: no JDK jni.h (openjdk-17-jdk-headless); skipping libtkkernels.so" >&2

for arch in arm mips aarch64 x86_64; do
  compiler=${cc[$arch]}
  if ! command -v "$compiler" >/dev/null; then
    echo "emu.sh: $compiler missing; skipping $arch (run scripts/setup)" >&2
    continue
  fi
  dir="$out/$arch"
  mkdir -p "$dir"
  # Known-count assembly programs: asm/<name>-<arch>.S -> <arch>/<name>.
  for asm in "$src"/asm/*-"$arch".S; do
    [ -e "$asm" ] || continue
    name=$(basename "$asm" "-$arch.S")
    if stale "$dir/$name" "$asm"; then
      "$compiler" -nostdlib -static -o "$dir/$name" "$asm"
    fi
  done
  suite=("$src"/suite/*.c "$src"/suite/kernels.h)
  if stale "$dir/suite" "${suite[@]}" "$0"; then
    objs=()
    for c in "$src"/suite/*.c; do
      name=$(basename "$c" .c)
      flags=(-O2 -std=gnu11 -Wall -I"$src/suite")
      if [ "$arch" = arm ]; then
        # Thumb-2 for the numeric kernels and the driver, ARM for the
        # integer kernels: the suite exercises both instruction sets.
        case $name in crypto|compress) flags+=(-marm) ;; *) flags+=(-mthumb) ;; esac
      fi
      "$compiler" "${flags[@]}" -c -o "$dir/$name.o" "$c"
      objs+=("$dir/$name.o")
    done
    "$compiler" -static -o "$dir/suite" "${objs[@]}" -lm
    rm -f "${objs[@]}"
  fi
  if stale "$dir/minijit" "$src/jit/minijit.c" "$0"; then
    "$compiler" -O1 -static -Wall -o "$dir/minijit" "$src/jit/minijit.c"
  fi
  # The JNI library: the same kernel sources, position-independent, against
  # the host JDK's jni.h (jni_md.h sizes jlong by the target's _LP64).
  jni_src=("$src/jni/tkkernels.c" "$src/suite/scimark.c" "$src/suite/crypto.c" "$src/suite/rand.c")
  if [ -n "$jdk_include" ] && stale "$dir/libtkkernels.so" "${jni_src[@]}" "$src/suite/kernels.h" "$0"; then
    "$compiler" -O2 -std=gnu11 -Wall -shared -fPIC -I"$src/suite" -I"$jdk_include" -I"$jdk_include/linux" \
      -o "$dir/libtkkernels.so" "${jni_src[@]}" -lm
  fi
done

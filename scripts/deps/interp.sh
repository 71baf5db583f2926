#!/usr/bin/env bash
# The native recorder's real-program workload (issue 15): Debian's Lua 5.4
# interpreter built from its Debian source package with
# -finstrument-functions, cached in ~/.cache/tracekit/lua5.4-instrumented
# (the source and build stay outside the repository). Idempotent: does
# nothing when the binary is there. Prints the binary's path.
set -euo pipefail
cache=${TRACEKIT_CACHE:-$HOME/.cache/tracekit}/lua5.4-instrumented
bin="$cache/lua"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
# apt-get source needs a deb-src entry and dpkg-dev.
if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  cat >/etc/apt/sources.list.d/tracekit-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -qq
fi
command -v dpkg-source >/dev/null || apt-get install -y -qq dpkg-dev >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/tracekit-lua.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source -qq lua5.4 >/dev/null 2>&1)
src=$(find "$work" -maxdepth 1 -type d -name 'lua5.4-*' | head -1)
[ -n "$src" ] || { echo "interp.sh: apt-get source lua5.4 gave no source tree" >&2; exit 1; }
# Debian's patches turn upstream's makefile into a libtool build: compile
# the interpreter directly instead (every source but the compiler `luac`),
# as upstream's `posix` target would, with every function instrumented.
mkdir -p "$cache"
# Debian's luaconf.h includes a header its build generates.
echo "#define DEB_HOST_MULTIARCH \"$(gcc -print-multiarch)\"" >"$src/src/lua5.4-deb-multiarch.h"
files=$(ls "$src"/src/*.c | grep -v '/luac\.c$')
gcc -O2 -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX -finstrument-functions \
    -o "$bin.tmp" $files -lm
mv "$bin.tmp" "$bin"
echo "interp.sh: built $bin" >&2
echo "$bin"

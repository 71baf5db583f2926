#!/usr/bin/env bash
# Guest JVMs for the emulator profiler (issue 17): Debian's OpenJDK 17 for
# other architectures, installed through multiarch so that qemu-user finds
# the guest's loader and libraries in the host's own /lib/<triplet> with no
# -L prefix. Idempotent: does nothing when every JVM is present.
#
# TRACEKIT_GUEST_JVMS lists Debian architectures (default: arm64). armhf
# (HotSpot with C1/C2 for ARMv7) can be added the same way; it is not the
# default because it doubles the download and, when this was written, the
# mirror's armhf security index was mid-sync and broke `apt-get update`.
# mipsel's OpenJDK is the Zero interpreter only (no JIT to compare).
set -euo pipefail
arches=${TRACEKIT_GUEST_JVMS:-arm64}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

missing=()
for a in $arches; do
  if ! dpkg-query -W -f='${Status}' "openjdk-17-jre-headless:$a" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$a")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

# The host's default java must stay the host's (the guest packages register
# alternatives with the same priority).
host_java=$(readlink -f "$(command -v java 2>/dev/null || echo /usr/bin/java)" 2>/dev/null || true)

for a in "${missing[@]}"; do
  if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
    echo "emu-jvm.sh: enabling multiarch for $a" >&2
    $SUDO dpkg --add-architecture "$a"
  fi
done
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
pkgs=()
for a in "${missing[@]}"; do pkgs+=("openjdk-17-jre-headless:$a"); done
echo "emu-jvm.sh: installing ${pkgs[*]}" >&2
# Multi-Arch: same packages must have one version on every architecture,
# so this may also update the host's own OpenJDK 17 to the same version.
$SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null

if [ -n "$host_java" ] && [ -x "$host_java" ] && [ "$(readlink -f /usr/bin/java)" != "$host_java" ]; then
  home=$(dirname "$(dirname "$host_java")")
  for tool in "$home"/bin/*; do
    name=$(basename "$tool")
    update-alternatives --list "$name" 2>/dev/null | grep -qx "$tool" && $SUDO update-alternatives --set "$name" "$tool" >/dev/null
  done
fi

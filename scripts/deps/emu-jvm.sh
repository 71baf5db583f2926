#!/usr/bin/env bash
# Guest JVMs for the emulator profiler (issue 17): Debian's OpenJDK 17 for
# other architectures. Idempotent: does nothing when every JVM is present.
#
# TRACEKIT_GUEST_JVMS lists Debian architectures (default: "arm64 armhf").
# - arm64 is installed through multiarch, so qemu-user finds the guest's
#   loader and libraries in the host's own /lib/<triplet> with no -L prefix.
# - Any other architecture is *unpacked* (dpkg -x, not installed) into
#   /opt/tracekit/guest-jvm/<arch>, where `tracekit emu run` looks for a
#   guest `java` (crates/emu/src/guest.rs). The loader and libc come from
#   the cross toolchain's /usr/<triplet> (scripts/deps/emu.apt), zlib is
#   copied beside the JDK's own libraries (their RUNPATH is $ORIGIN), and
#   the JDK's links into /etc point into the unpacked tree. Unpacking needs
#   no multiarch, so it does not tie the host's OpenJDK to the guest's
#   version (Multi-Arch: same) and it works when the mirror's index for
#   that architecture's security updates is mid-sync, which made a
#   multiarch install of armhf fail here. The package lists for that
#   architecture live in a private apt state under the install directory.
# mipsel's OpenJDK is the Zero interpreter only (no JIT to compare).
set -euo pipefail
arches=${TRACEKIT_GUEST_JVMS:-arm64 armhf}
guest_root=/opt/tracekit/guest-jvm
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# Unpacks openjdk-17-jre-headless and zlib1g for Debian arch $1 into
# $guest_root/$1 (replacing a partial earlier attempt).
unpack() {
  local a=$1 dest=$guest_root/$1 state
  state=$guest_root/.apt-$a
  echo "emu-jvm.sh: unpacking openjdk-17-jre-headless:$a into $dest" >&2
  $SUDO rm -rf "$dest" "$dest.new"
  $SUDO mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$dest.new"
  local -a apt=(-qq -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
    -o "APT::Architecture=$a" -o "APT::Architectures::=$a")
  # An index that fails (a mirror mid-sync) leaves the others usable; the
  # download below fails if the packages are nowhere.
  $SUDO apt-get "${apt[@]}" update || echo "emu-jvm.sh: some $a package lists could not be fetched; using the others" >&2
  (cd "$state/cache" && $SUDO apt-get "${apt[@]}" download "openjdk-17-jre-headless:$a" "zlib1g:$a") 2>&1 |
    { grep -v 'unsandboxed as root' >&2 || true; }
  local deb
  for deb in "$state"/cache/*.deb; do $SUDO dpkg -x "$deb" "$dest.new"; done
  $SUDO rm -f "$state"/cache/*.deb
  local jdk triplet
  jdk=$dest.new/usr/lib/jvm/java-17-openjdk-$a
  triplet=$(basename "$(dirname "$(echo "$dest.new"/lib/*/libz.so.1)")")
  $SUDO cp -a "$dest.new/lib/$triplet"/libz.so.1* "$jdk/lib/"
  local link
  while IFS= read -r link; do
    $SUDO ln -sfn "$dest$(readlink "$link")" "$link"
  done < <(find "$jdk" -type l -lname '/etc/*')
  [ -x "$jdk/bin/java" ] || { echo "emu-jvm.sh: $jdk/bin/java missing after unpacking" >&2; exit 1; }
  $SUDO mv "$dest.new" "$dest"
  $SUDO rm -rf "$state"
}

missing=()
for a in $arches; do
  if [ "$a" = arm64 ]; then
    if ! dpkg-query -W -f='${Status}' "openjdk-17-jre-headless:$a" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$a")
    fi
  elif [ ! -x "$guest_root/$a/usr/lib/jvm/java-17-openjdk-$a/bin/java" ]; then
    unpack "$a"
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

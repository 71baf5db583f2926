#!/usr/bin/env bash
# Instruments a real APK under each scheme with `tracekit paths instrument-apk`
# and prints, per scheme: methods instrumented and left out, the dex bytes
# before and after, wall time. APKs are never committed; pass your own.
# Usage: scripts/bench/smali-apk.sh app.apk [scheme…]   (default: blpp pap adaptracer)
set -euo pipefail
apk=$1; shift
schemes=("${@:-blpp pap adaptracer}")
tk=${TRACEKIT:-target/release/tracekit}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dexbytes() { unzip -l "$1" | awk '/classes[0-9]*\.dex$/ {s += $1} END {print s}'; }
before=$(dexbytes "$apk")
apktool d -f -r -o "$work/decoded" "$apk" >/dev/null
for s in ${schemes[@]}; do
  start=$(date +%s.%N)
  "$tk" paths instrument-apk "$work/decoded" -o "$work/$s.apk" --scheme "$s" 2>"$work/$s.txt" || { cat "$work/$s.txt"; exit 1; }
  end=$(date +%s.%N)
  after=$(dexbytes "$work/$s.apk")
  summary=$(grep -E 'methods instrumented' "$work/$s.txt" | sed 's/^tracekit: //')
  printf '%s\t%s\tdex %s -> %s bytes (+%.0f%%)\t%.0f s\n' "$(basename "$apk")" "$summary" "$before" "$after" \
    "$(echo "($after - $before) * 100 / $before" | bc -l)" "$(echo "$end - $start" | bc -l)"
  grep -o 'left uninstrumented: [^:]*: .*' "$work/$s.txt" | sed 's/^left uninstrumented: [^:]*: //' | sort | uniq -c | sort -rn | head -5 || true
done

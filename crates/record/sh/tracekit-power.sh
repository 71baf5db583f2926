#!/bin/sh
# tracekit's power sampler for a rooted Android phone (or any Linux with a
# battery fuel gauge): every PERIOD it reads the battery's voltage, current
# and charge counter from sysfs and writes them as atrace counters into the
# kernel's trace buffer through trace_marker, so they share the trace clock
# with every other kernel event. This is seed 002's design (a kernel thread
# writing "v:... c:... e:..." into the ring buffer) without a kernel patch.
#
# Runs under toybox sh, busybox sh, dash and bash (POSIX sh only).
#
#   adb push tracekit-power.sh /data/local/tmp/
#   adb shell su -c 'sh /data/local/tmp/tracekit-power.sh -p 100 &'
#   # capture with atrace/perfetto as usual; then: tracekit energy trace.html
#
# Options:
#   -p MS     period in milliseconds (default 100)
#   -n COUNT  stop after COUNT samples (default: run until killed)
#   -m FILE   trace marker (default: the first of
#             /sys/kernel/tracing/trace_marker, /sys/kernel/debug/tracing/trace_marker)
#   -r ROOT   root standing for /sys (for tests)
#   -b NAME   battery directory under class/power_supply (default: the first of type Battery)
#
# Each sample is three counters, in SI units as tracekit names them:
#   C|PID|battery voltage|V   C|PID|battery current|A   C|PID|battery charge|uAh
# Current keeps the driver's sign; tracekit's energy analysis works out
# which sign means discharging.

period=100
count=-1
marker=
root=/sys
battery=

while getopts p:n:m:r:b: opt; do
  case $opt in
    p) period=$OPTARG ;;
    n) count=$OPTARG ;;
    m) marker=$OPTARG ;;
    r) root=$OPTARG ;;
    b) battery=$OPTARG ;;
    *) echo "usage: $0 [-p MS] [-n COUNT] [-m MARKER] [-r SYSROOT] [-b BATTERY]" >&2; exit 2 ;;
  esac
done

if [ -z "$marker" ]; then
  for m in "$root/kernel/tracing/trace_marker" "$root/kernel/debug/tracing/trace_marker"; do
    if [ -e "$m" ]; then marker=$m; break; fi
  done
fi
if [ -z "$marker" ] || [ ! -w "$marker" ]; then
  echo "tracekit-power: no writable trace_marker (give one with -m)" >&2
  exit 1
fi

supplies=$root/class/power_supply
if [ -z "$battery" ]; then
  for d in "$supplies"/*; do
    [ -r "$d/type" ] || continue
    read -r t < "$d/type"
    if [ "$t" = Battery ]; then battery=${d##*/}; break; fi
  done
fi
dir=$supplies/$battery
if [ -z "$battery" ] || [ ! -r "$dir/voltage_now" ]; then
  echo "tracekit-power: no battery with voltage_now under $supplies (give one with -b)" >&2
  exit 1
fi

# Prints an integer number of millionths as a decimal: -530056 -> -0.530056.
micro() {
  v=$1 sign=
  case $v in -*) sign=-; v=${v#-} ;; esac
  v=$(printf '%07d' "$v")
  int=${v%??????}
  echo "$sign$int.${v#"$int"}"
}

# Seconds for sleep, from milliseconds: 100 -> 0.100.
secs=$(printf '%d.%03d' $((period / 1000)) $((period % 1000)))

pid=$$
n=0
while [ "$count" -lt 0 ] || [ "$n" -lt "$count" ]; do
  # Each write to trace_marker is one trace entry, stamped when it is written.
  if read -r v < "$dir/voltage_now"; then
    printf 'C|%s|battery voltage|%s\n' "$pid" "$(micro "$v")" >> "$marker"
  fi
  if [ -r "$dir/current_now" ] && read -r c < "$dir/current_now"; then
    printf 'C|%s|battery current|%s\n' "$pid" "$(micro "$c")" >> "$marker"
  fi
  if [ -r "$dir/charge_counter" ] && read -r e < "$dir/charge_counter"; then
    printf 'C|%s|battery charge|%s\n' "$pid" "$e" >> "$marker"
  fi
  n=$((n + 1))
  if [ "$count" -lt 0 ] || [ "$n" -lt "$count" ]; then
    sleep "$secs"
  fi
done

#!/usr/bin/env bash
# The power sampler's own cost: `tracekit power record` sampling a battery,
# a RAPL zone and an hwmon sensor at 100 Hz (every 10 ms) for DURATION
# seconds; reports the CPU time it used as a share of one core. The sources
# are a fixture tree in /dev/shm (this VM has no battery; tmpfs, like sysfs,
# keeps no access times); on a phone a fuel-gauge read
# can be slower, since the driver may talk to the gauge over I2C.
#   DURATION=20 RUNS=5 scripts/bench/power-sampler.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-20}
RUNS=${RUNS:-5}
cargo build --release --locked -q -p tracekit
bin=target/release/tracekit
root=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$root"' EXIT
mk() { mkdir -p "$(dirname "$root/sys/$1")"; echo "$2" >"$root/sys/$1"; }
mk class/power_supply/BAT0/type Battery
for f in voltage_now:3800000 current_now:-250000 charge_counter:2000000 power_now:950000 capacity:81 temp:310 status:Discharging; do
  mk "class/power_supply/BAT0/${f%%:*}" "${f#*:}"
done
mk class/powercap/intel-rapl:0/name package-0
mk class/powercap/intel-rapl:0/energy_uj 1000000
mk class/powercap/intel-rapl:0/max_energy_range_uj 262143328850
mk class/hwmon/hwmon0/name ina3221
mk class/hwmon/hwmon0/power1_input 1500000
python3 - "$bin" "$root" "$DURATION" "$RUNS" <<'PY'
import os, subprocess, sys, statistics
bin, root, duration, runs = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
shares = []
for i in range(runs):
    out = os.path.join(root, f"rec{i}")
    before = os.times()
    subprocess.run([bin, "power", "record", "-o", out, "--sys-root", os.path.join(root, "sys"),
                    "--period-ms", "10", "--context", "none", "--duration-s", str(duration)],
                   check=True, stderr=subprocess.DEVNULL)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    lines = sum(1 for _ in open(os.path.join(out, "context.jsonl"))) - 1
    shares.append(100 * cpu / duration)
    print(f"run {i+1}: {cpu:.3f} s CPU over {duration:.0f} s = {shares[-1]:.3f}% of a core; {lines} samples ({lines/duration/9:.1f} Hz per source)")
print(f"median: {statistics.median(shares):.3f}% of a core at 100 Hz")
PY

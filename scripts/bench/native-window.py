#!/usr/bin/env python3
"""Time windows of a long native recording (issue 15): how long `tracekit
profile` takes, and how long `tracekit ui` takes to serve and how much
memory it holds, for the whole recording and for a tenth of its run at the
start, the middle and the end.

Records Debian's Lua 5.4 built with -finstrument-functions
(scripts/deps/interp.sh) running scripts/bench/interp_workload.lua SCALE
times (default 9: about 2.4e8 events), unless REC names a recording to use.
ROUNDS (default 3) interleaved rounds; medians. `ui` is measured whole (`--max-events 0`) only
when the recording has at most UI_WHOLE_MAX events (default 5e7: the whole
load holds about 24 bytes per event); `ui` with no option (which opens on
the first `--max-events` events) is measured too.

A window's first read skims every block before it and saves checkpoints of
the open frames beside the thread files (`*.tkt.frames`); later reads start
from them. Each round times a window's `profile` twice: with the
checkpoints deleted first (a first read), and again right after (from the
checkpoints the first read saved). `ui` runs after both.

    scripts/bench/native-window.py
    SCALE=1 ROUNDS=5 scripts/bench/native-window.py
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TK = os.path.join(ROOT, "target", "release", "tracekit")


def timed(args):
    """(wall s, peak KB) of a command run under GNU time (its output dropped)."""
    t0 = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *args], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {p.stderr[-500:]}")
    return time.time() - t0, int(p.stderr.strip().splitlines()[-1])


def ui_ready(args):
    """(s until `tracekit ui` serves, peak KB) for `tracekit ui ARGS`."""
    t0 = time.time()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", TK, "ui", *args, "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    ready = time.time() - t0
    if "serving" not in line:
        sys.exit(f"ui {args}: {line!r} {p.stderr.read()[-500:]}")
    subprocess.run(["pkill", "-INT", "-P", str(p.pid)])
    _, err = p.communicate(timeout=120)
    return ready, int(err.strip().splitlines()[-1])


def drop_checkpoints(rec):
    """Deletes the skim checkpoints saved beside the thread files of `rec`."""
    for f in os.listdir(rec):
        if f.endswith(".tkt.frames"):
            os.remove(os.path.join(rec, f))


def main():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tracekit", "-p", "tracekit-rt"], cwd=ROOT, check=True)
    rounds = int(os.environ.get("ROUNDS", "3"))
    work = None
    rec = os.environ.get("REC")
    if not rec:
        lua = subprocess.run(["bash", "scripts/deps/interp.sh"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
        work = tempfile.mkdtemp(prefix="tracekit-window.", dir=os.environ.get("BENCH_DIR", "/tmp"))
        rec = os.path.join(work, "rec")
        subprocess.run([TK, "record", "--context", "none", "-o", rec, "--", lua,
                        "scripts/bench/interp_workload.lua", os.environ.get("SCALE", "9")],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        stats = subprocess.run([TK, "replay", "--stats", rec], check=True, capture_output=True, text=True).stdout
        events = int(stats.strip().splitlines()[-1].split()[1])
        outer = json.loads(subprocess.run([TK, "replay", rec, "--json", "--depth", "1"], check=True,
                                          capture_output=True, text=True).stdout)["events"]
        start, end = outer[0]["ts_ns"] / 1e3, outer[-1]["ts_ns"] / 1e3
        span = end - start
        windows = [("whole run", [])] + [
            (f"{name} tenth", ["--from-us", f"{start + span * f:.0f}", "--to-us", f"{start + span * (f + 0.1):.0f}"])
            for name, f in [("first", 0.0), ("middle", 0.45), ("last", 0.9)]
        ]
        ui_whole = events <= float(os.environ.get("UI_WHOLE_MAX", "5e7"))
        prof = {w: [] for w, _ in windows}
        warm = {w: [] for w, _ in windows}
        ui = {w: [] for w, _ in windows}
        ui_default = []
        for _ in range(rounds):
            for name, extra in windows:
                drop_checkpoints(rec)
                prof[name].append(timed([TK, "profile", rec, "--json", *extra]))
                if extra:
                    warm[name].append(timed([TK, "profile", rec, "--json", *extra]))
                if extra or ui_whole:
                    # `ui` with no window opens on the first --max-events events; 0 loads it whole.
                    ui[name].append(ui_ready([rec, *(extra or ["--max-events", "0"])]))
            ui_default.append(ui_ready([rec]))
        print(f"{events:.3g} events, run of {span / 1e6:.2f} s, medians of {rounds}\n")
        print("| window | `profile` s, first read | `profile` s, from checkpoints | `profile` MB | `ui` ready s | `ui` MB |")
        print("|---|---|---|---|---|---|")
        med = lambda xs, i: statistics.median(x[i] for x in xs)
        for name, _ in windows:
            u = ui[name]
            ui_cols = f"{med(u, 0):.2f} | {med(u, 1) / 1024:.0f}" if u else "— | —"
            w = f"{med(warm[name], 0):.2f}" if warm[name] else "—"
            print(f"| {name} | {med(prof[name], 0):.2f} | {w} | {med(prof[name], 1) / 1024:.0f} | {ui_cols} |")
        print(f"| `ui` with no window (its default --max-events) | | | | {med(ui_default, 0):.2f} | "
              f"{med(ui_default, 1) / 1024:.0f} |")
    finally:
        if work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

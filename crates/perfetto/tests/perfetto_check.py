#!/usr/bin/env python3
"""Decodes a trace written by tracekit-perfetto with Perfetto's own published
protobuf definitions (the `perfetto` PyPI package's generated
`perfetto_trace_pb2`) and checks it against what the session held.

    perfetto_check.py TRACE EXPECTED.json

EXPECTED (written by tests/python_decode.rs) lists, per thread id, the
slices in start order as [name, start_ns, end_ns, depth, cpu_start, cpu_end,
unwound] on the session's timeline, plus thread names, counters and markers.
This script rebuilds the same from the packets alone, following Perfetto's
rules: interned names are per trusted_packet_sequence_id and are valid only
after a packet with SEQ_INCREMENTAL_STATE_CLEARED; a packet that uses them
must set SEQ_NEEDS_INCREMENTAL_STATE; SLICE_END closes the innermost open
slice of its track; timeline 0 is the clock snapshot's BOOTTIME reading.
Exits non-zero with a message on the first difference.
"""

import json
import sys

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

CLEARED = 1
NEEDS = 2
BOOTTIME = 6


def fail(msg):
    print(f"perfetto_check: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    trace_path, expected_path = sys.argv[1], sys.argv[2]
    trace = pb.Trace()
    with open(trace_path, "rb") as f:
        trace.ParseFromString(f.read())
    expected = json.load(open(expected_path))

    origin = None
    tracks = {}  # uuid -> descriptor
    names = {}  # seq -> {iid: name}
    annotation_names = {}
    valid = set()  # sequences whose incremental state was cleared
    open_slices = {}  # track uuid -> stack of [name, start, cpu_start]
    slices = {}  # tid -> list of (name, start, end, depth, cpu_start, cpu_end, unwound)
    counters = {}  # uuid -> list of (ts, value)
    instants = {}  # track uuid -> list of (ts, name)
    last_ts = {}

    for p in trace.packet:
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & CLEARED:
            names[seq] = {}
            annotation_names[seq] = {}
            valid.add(seq)
        if p.HasField("interned_data"):
            if seq not in valid:
                fail("interned data on a sequence whose state was never cleared")
            for n in p.interned_data.event_names:
                names[seq][n.iid] = n.name
            for n in p.interned_data.debug_annotation_names:
                annotation_names[seq][n.iid] = n.name
        if p.HasField("clock_snapshot") and origin is None:
            for c in p.clock_snapshot.clocks:
                if c.clock_id == BOOTTIME:
                    origin = c.timestamp
        if p.HasField("track_descriptor"):
            tracks[p.track_descriptor.uuid] = p.track_descriptor
        if not p.HasField("track_event"):
            continue
        e = p.track_event
        if origin is None:
            fail("track event before any clock snapshot")
        if seq in last_ts and p.timestamp < last_ts[seq]:
            fail(f"timestamps go back on sequence {seq}")
        last_ts[seq] = p.timestamp
        uses_interning = e.HasField("name_iid") or any(a.HasField("name_iid") for a in e.debug_annotations)
        if uses_interning and not p.sequence_flags & NEEDS:
            fail("a packet uses interned names without SEQ_NEEDS_INCREMENTAL_STATE")
        ts = p.timestamp - origin
        name = names[seq][e.name_iid] if e.HasField("name_iid") else e.name
        cpu = None
        for uuid, value in zip(e.extra_counter_track_uuids, e.extra_counter_values):
            d = tracks[uuid]
            if d.counter.type == pb.CounterDescriptor.COUNTER_THREAD_TIME_NS:
                cpu = value
        if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
            open_slices.setdefault(e.track_uuid, []).append([name, ts, cpu])
        elif e.type == pb.TrackEvent.TYPE_SLICE_END:
            stack = open_slices.get(e.track_uuid)
            if not stack:
                fail(f"slice end with nothing open on track {e.track_uuid} at {ts}")
            depth = len(stack) - 1
            n, start, cpu_start = stack.pop()
            unwound = any(
                annotation_names[seq].get(a.name_iid) == "tracekit.unwind" and a.bool_value
                for a in e.debug_annotations
            )
            d = tracks[e.track_uuid]
            if d.HasField("thread"):
                slices.setdefault(d.thread.tid, []).append((n, start, ts, depth, cpu_start, cpu, unwound))
        elif e.type == pb.TrackEvent.TYPE_INSTANT:
            instants.setdefault(e.track_uuid, []).append((ts, name))
        elif e.type == pb.TrackEvent.TYPE_COUNTER:
            counters.setdefault(e.track_uuid, []).append((ts, e.double_counter_value))

    for uuid, stack in open_slices.items():
        if stack:
            fail(f"{len(stack)} slices left open on track {uuid}")

    # Threads: names and slices.
    thread_tracks = {d.thread.tid: d for d in tracks.values() if d.HasField("thread")}
    total = 0
    for tid, want in expected["threads"].items():
        tid = int(tid)
        if tid not in thread_tracks:
            fail(f"no thread track for tid {tid}")
        if thread_tracks[tid].thread.thread_name != want["name"]:
            fail(f"thread {tid} is named {thread_tracks[tid].thread.thread_name!r}, not {want['name']!r}")
        got = sorted(slices.get(tid, []), key=lambda s: (s[1], s[3]))
        want_slices = [tuple(s) for s in want["slices"]]
        if len(got) != len(want_slices):
            fail(f"thread {tid}: {len(got)} slices decoded, {len(want_slices)} expected")
        for i, (g, w) in enumerate(zip(got, want_slices)):
            if tuple(g) != w:
                fail(f"thread {tid} slice {i}: decoded {g}, expected {w}")
        total += len(got)

    # Counters: name, unit and samples.
    by_name = {d.name: d for d in tracks.values() if d.HasField("counter") and d.name}
    for name, want in expected["counters"].items():
        d = by_name.get(name)
        if d is None:
            fail(f"no counter track named {name!r}")
        unit = d.counter.unit_name if d.counter.HasField("unit_name") else None
        if unit != want["unit"]:
            fail(f"counter {name!r} has unit {unit!r}, not {want['unit']!r}")
        got = [[t, v] for t, v in counters.get(d.uuid, [])]
        if got != want["samples"]:
            fail(f"counter {name!r}: samples differ ({len(got)} decoded, {len(want['samples'])} expected)")

    # Markers: instants on thread tracks.
    got_markers = sorted(
        [ts, d.thread.tid, n]
        for uuid, items in instants.items()
        for d in [tracks[uuid]]
        if d.HasField("thread")
        for ts, n in items
    )
    if got_markers != sorted(expected["markers"]):
        fail(f"markers differ: decoded {got_markers[:5]}..., expected {sorted(expected['markers'])[:5]}...")

    print(f"perfetto_check: ok: {total} slices on {len(expected['threads'])} threads, "
          f"{len(expected['counters'])} counters, {len(got_markers)} markers")


if __name__ == "__main__":
    main()

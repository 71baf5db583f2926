//! What the reader makes of each kind of packet, on traces built by hand:
//! battery counters and power rails, compact scheduling, other ftrace
//! clocks, sequence-scoped incremental clocks, packet defaults, legacy
//! thread descriptors, the process tree, atrace markers, and the repairs.

mod common;

use common::*;
use tracekit_model::*;
use tracekit_perfetto::proto::*;
use tracekit_perfetto::{read_bytes, repair};

fn counter<'a>(s: &'a Session, name: &str) -> &'a CounterTrack {
    s.counters
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no counter {name}: {:?}", s.counters))
}

fn repairs(s: &Session, code: &str) -> u64 {
    s.repairs.iter().find(|r| r.code == code).map_or(0, |r| r.count)
}

#[test]
fn kitchen_sink_reads_into_every_part_of_the_model() {
    let s = read_bytes(&kitchen_sink(), "sink.pftrace").unwrap();
    assert_eq!(s.source_clock.as_ref().unwrap().origin_ns, 1_000_000);
    assert_eq!(s.anchor_unix_ns, Some(1_700_000_000_000_000_000));
    // Track-event slice and atrace slice on the same thread (tid 6), merged.
    let t = ThreadId(s.threads.iter().position(|t| t.tid == 6).unwrap() as u32);
    assert_eq!(s.thread(t).name, "ui");
    assert_eq!(s.thread(t).pid, Some(5));
    let calls: Vec<(CallKind, String, u64)> = s
        .calls(t)
        .iter()
        .map(|e| (e.kind, s.methods.get(e.method).name.clone(), e.ts_ns))
        .collect();
    assert_eq!(
        calls,
        vec![
            (CallKind::Enter, "frame".into(), 100),
            (CallKind::Enter, "draw".into(), 300),
            (CallKind::Exit, "draw".into(), 450),
            (CallKind::Exit, "frame".into(), 900),
        ]
    );
    // Battery counters in SI units under the model's names.
    use tracekit_model::power::*;
    let v = counter(&s, BATTERY_VOLTAGE);
    assert_eq!(
        (v.unit.as_deref(), v.values.as_slice(), v.times.as_slice()),
        (Some(VOLT), &[3.9][..], &[500][..])
    );
    assert_eq!(counter(&s, BATTERY_CURRENT).values, vec![-0.25]);
    assert_eq!(counter(&s, BATTERY_CHARGE).unit.as_deref(), Some(MICRO_AMPERE_HOUR));
    assert_eq!(counter(&s, BATTERY_CAPACITY).values, vec![87.5]);
    // atrace counter, per process.
    let q = counter(&s, "queue");
    assert_eq!((q.pid, q.values.as_slice()), (Some(5), &[3.0][..]));
    // One scheduling slice: ui on CPU 0 from 200 to 600, left sleeping.
    assert_eq!(s.sched.len(), 1);
    let x = s.sched[0];
    assert_eq!(
        (x.cpu, x.ts_ns, x.dur_ns, x.thread, x.end_state.unwrap().as_str()),
        (0, 200, 400, t, "S")
    );
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
}

#[test]
fn compact_sched_and_ftrace_clock_conversion() {
    let compact = CompactSched {
        intern_table: vec![b"a".to_vec(), b"b".to_vec()],
        // Delta-encoded: 1000, 1500, 1700.
        switch_timestamp: vec![1_000, 500, 200],
        switch_prev_state: vec![0, 1, 0x100],
        switch_next_pid: vec![11, 12, 0],
        switch_next_prio: vec![120, 110, 120],
        switch_next_comm_index: vec![0, 1, 0],
        waking_timestamp: vec![1_100, 5],
    };
    // A bundle on CPU 2 stamped with another ftrace clock: boot = ftrace + 50.
    let mut b = varint_field(1, 2);
    b.extend(bytes_field(4, &prost::Message::encode_to_vec(&compact)));
    b.extend(varint_field(5, 2));
    b.extend(varint_field(6, 10_000));
    b.extend(varint_field(7, 10_050));
    let s = read_bytes(&trace(&[Packet::new().seq(1).raw(1, &b)]), "c").unwrap();
    let got: Vec<(u32, u64, u64, String, String)> = s
        .sched
        .iter()
        .map(|x| {
            (
                x.cpu,
                x.ts_ns,
                x.dur_ns,
                s.thread(x.thread).name.clone(),
                x.end_state.unwrap().as_str().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (2, 0, 500, "a".into(), "S".into()),
            (2, 500, 200, "b".into(), "R+".into())
        ]
    );
    assert_eq!(s.source_clock.unwrap().origin_ns, 1_050);
    assert_eq!(s.skipped, vec![("ftrace sched_waking".to_owned(), 2)]);
}

#[test]
fn incremental_clocks_defaults_and_thread_time() {
    // Sequence 7 defines clock 64: incremental, in µs, 0 at BOOTTIME 5 ms;
    // its defaults put events on track 1 with thread time on track 2.
    let snap = ClockSnapshot {
        clocks: vec![
            Clock {
                clock_id: Some(6),
                timestamp: Some(5_000_000),
                is_incremental: None,
                unit_multiplier_ns: None,
            },
            Clock {
                clock_id: Some(64),
                timestamp: Some(0),
                is_incremental: Some(true),
                unit_multiplier_ns: Some(1_000),
            },
        ],
        primary_trace_clock: None,
    };
    let defaults = TracePacketDefaults {
        timestamp_clock_id: Some(64),
        track_event_defaults: Some(TrackEventDefaults {
            track_uuid: Some(1),
            extra_counter_track_uuids: vec![2],
            extra_double_counter_track_uuids: vec![],
        }),
    };
    let cpu_track = TrackDescriptor {
        uuid: Some(2),
        parent_uuid: Some(1),
        counter: Some(CounterDescriptor {
            r#type: Some(COUNTER_THREAD_TIME_NS),
            ..Default::default()
        }),
        ..Default::default()
    };
    let ev = |typ, iid, cpu: i64| TrackEvent {
        r#type: Some(typ),
        name_iid: (iid != 0).then_some(iid),
        extra_counter_values: vec![cpu],
        ..Default::default()
    };
    let s = read_bytes(
        &trace(&[
            Packet::new().seq(7).flags(1).msg(6, &snap).msg(59, &defaults),
            Packet::new().seq(7).msg(60, &thread_track(1, 3, 4, "w")),
            Packet::new().seq(7).msg(60, &cpu_track),
            Packet::new()
                .seq(7)
                .flags(2)
                .ts(10)
                .msg(11, &ev(1, 1, 700))
                .msg(12, &names(&[(1, "job")])),
            Packet::new().seq(7).flags(2).ts(15).msg(11, &ev(2, 0, 900)),
        ]),
        "inc",
    )
    .unwrap();
    assert_eq!(s.clocks, Clocks::DUAL);
    let c = s.calls(ThreadId(0));
    // 10 µs and 25 µs after the snapshot; timeline 0 is the snapshot.
    assert_eq!(c.get(0), CallEvent::enter(c.get(0).method, 10_000, Some(700)));
    assert_eq!(c.get(1).ts_ns, 25_000);
    assert_eq!(c.get(1).cpu_ns, Some(900));
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
}

#[test]
fn legacy_thread_descriptor_process_tree_and_late_descriptors() {
    let tree = ProcessTree {
        processes: vec![ProcessTreeProcess {
            pid: Some(50),
            cmdline: vec![b"/system/bin/app".to_vec(), b"--flag".to_vec()],
        }],
        threads: vec![ProcessTreeThread {
            tid: Some(51),
            tgid: Some(50),
            name: Some(b"RenderThread".to_vec()),
        }],
    };
    let legacy = ThreadDescriptor {
        pid: Some(50),
        tid: Some(51),
        thread_name: None,
    };
    let s = read_bytes(
        &trace(&[
            Packet::new().seq(1).msg(2, &tree),
            // An event on a track described only later.
            Packet::new().seq(2).ts(40).msg(
                11,
                &TrackEvent {
                    r#type: Some(3),
                    track_uuid: Some(99),
                    name: Some(b"late".to_vec()),
                    ..Default::default()
                },
            ),
            Packet::new().seq(3).msg(44, &legacy),
            Packet::new().seq(3).ts(10).msg(
                11,
                &TrackEvent {
                    r#type: Some(1),
                    name: Some(b"paint".to_vec()),
                    ..Default::default()
                },
            ),
            Packet::new().seq(3).ts(30).msg(
                11,
                &TrackEvent {
                    r#type: Some(2),
                    ..Default::default()
                },
            ),
            Packet::new().seq(2).msg(60, &thread_track(99, 50, 51, "")),
        ]),
        "legacy",
    )
    .unwrap();
    assert_eq!(s.threads.len(), 1);
    assert_eq!(
        (s.threads[0].name.as_str(), s.threads[0].pid),
        ("RenderThread", Some(50))
    );
    assert_eq!(
        s.processes,
        vec![Process {
            pid: 50,
            name: "/system/bin/app".into()
        }]
    );
    assert_eq!(s.call_event_count(), 2);
    assert_eq!(s.markers.len(), 1);
    assert_eq!((s.markers[0].ts_ns, s.markers[0].name.as_str()), (30, "late"));
}

#[test]
fn atrace_async_counters_instants_and_repairs() {
    let events = [
        print(100, 7, "S|3|load|42"),
        print(110, 7, "G|3|net|fetch|5"),
        print(120, 8, "I|3|tap"),
        print(130, 8, "N|3|log|hello"),
        print(140, 8, "E|3"), // nothing open on tid 8
        print(150, 7, "B|3|work"),
        print(160, 7, "H|3|net|5"),
        print(170, 8, "F|3|load|42"),
        print(180, 7, "B|3|never ends"),
        print(190, 7, "not a marker"),
        print(200, 7, "C|3|bad|x"),
    ];
    let s = read_bytes(&trace(&[Packet::new().seq(1).raw(1, &bundle(0, &events))]), "a").unwrap();
    let asyncs: Vec<(String, Option<String>, u64, u64, bool)> = s
        .async_slices
        .iter()
        .map(|a| (a.name.clone(), a.category.clone(), a.ts_ns, a.dur_ns, a.open))
        .collect();
    assert_eq!(
        asyncs,
        vec![
            ("load".into(), None, 0, 70, false),
            ("fetch".into(), Some("net".into()), 10, 50, false),
            ("hello".into(), Some("log".into()), 30, 0, false),
        ]
    );
    assert_eq!(s.markers.len(), 1);
    assert_eq!(s.markers[0].name, "tap");
    assert_eq!(repairs(&s, repair::END_WITHOUT_BEGIN), 1);
    assert_eq!(repairs(&s, repair::OPEN_AT_END), 2);
    assert_eq!(
        s.skipped.iter().map(|(k, n)| (k.as_str(), *n)).collect::<Vec<_>>(),
        vec![
            ("atrace malformed counter", 1),
            ("ftrace print (not an atrace marker)", 1),
        ]
    );
    // tid 7: work and never ends, both closed at its last event (180).
    let t7 = ThreadId(s.threads.iter().position(|t| t.tid == 7).unwrap() as u32);
    let c = s.calls(t7);
    assert_eq!(c.len(), 4);
    assert_eq!(c.get(3).ts_ns, 80);
}

#[test]
fn power_rails_become_cumulative_energy() {
    let rails = PowerRails {
        rail_descriptor: vec![RailDescriptor {
            index: Some(0),
            rail_name: Some(b"S4M_VDD_CPUCL0".to_vec()),
            subsys_name: Some(b"cpu".to_vec()),
        }],
        energy_data: vec![
            EnergyData {
                index: Some(0),
                timestamp_ms: Some(1_000),
                energy: Some(2_000_000),
            },
            EnergyData {
                index: Some(0),
                timestamp_ms: Some(1_100),
                energy: Some(2_500_000),
            },
        ],
    };
    let s = read_bytes(&trace(&[Packet::new().seq(1).ts(5).msg(40, &rails)]), "r").unwrap();
    let c = counter(&s, "rail S4M_VDD_CPUCL0 energy");
    assert_eq!((c.unit.as_deref(), c.kind), (Some("J"), CounterKind::Cumulative));
    assert_eq!(c.values, vec![2.0, 2.5]);
    assert_eq!(c.times, vec![0, 100_000_000]);
}

#[test]
fn compressed_packets_are_inflated() {
    use std::io::Write;
    let inner = kitchen_sink();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&inner).unwrap();
    let packed = trace(&[Packet::new().seq(9).raw(50, &z.finish().unwrap())]);
    let a = read_bytes(&inner, "plain").unwrap();
    let b = read_bytes(&packed, "packed").unwrap();
    assert_eq!(a.call_event_count(), b.call_event_count());
    assert_eq!(a.sched, b.sched);
    assert_eq!(a.counters, b.counters);
    // Not zlib: an error at the packet.
    let bad = trace(&[
        Packet::new().seq(1).raw(60, &[]),
        Packet::new().seq(9).raw(50, b"not zlib"),
        Packet::new().seq(1),
    ]);
    let e = read_bytes(&bad, "bad").unwrap_err();
    assert!(e.to_string().contains("do not inflate"), "{e}");
}

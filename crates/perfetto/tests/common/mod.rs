//! Building Perfetto traces by hand for tests: packets as raw fields, so a
//! test can put in any field the writer never makes (ftrace bundles,
//! battery counters, defaults, sequence-scoped clocks, …).

#![allow(dead_code)]

use prost::Message;
use tracekit_perfetto::proto::*;

/// A varint.
pub fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// A length-delimited field.
pub fn bytes_field(number: u32, body: &[u8]) -> Vec<u8> {
    let mut out = varint(u64::from(number) << 3 | 2);
    out.extend(varint(body.len() as u64));
    out.extend_from_slice(body);
    out
}

/// A varint field.
pub fn varint_field(number: u32, v: u64) -> Vec<u8> {
    let mut out = varint(u64::from(number) << 3);
    out.extend(varint(v));
    out
}

/// A packet: its fields, then wrapped as `Trace.packet`.
#[derive(Default, Clone)]
pub struct Packet(pub Vec<u8>);

impl Packet {
    pub fn new() -> Packet {
        Packet::default()
    }
    pub fn ts(mut self, ts: u64) -> Packet {
        self.0.extend(varint_field(8, ts));
        self
    }
    pub fn seq(mut self, id: u32) -> Packet {
        self.0.extend(varint_field(10, u64::from(id)));
        self
    }
    pub fn flags(mut self, f: u32) -> Packet {
        self.0.extend(varint_field(13, u64::from(f)));
        self
    }
    pub fn clock(mut self, id: u32) -> Packet {
        self.0.extend(varint_field(58, u64::from(id)));
        self
    }
    pub fn msg(mut self, number: u32, m: &impl Message) -> Packet {
        self.0.extend(bytes_field(number, &m.encode_to_vec()));
        self
    }
    pub fn raw(mut self, number: u32, body: &[u8]) -> Packet {
        self.0.extend(bytes_field(number, body));
        self
    }
    pub fn encode(&self) -> Vec<u8> {
        bytes_field(1, &self.0)
    }
}

/// A trace of packets.
pub fn trace(packets: &[Packet]) -> Vec<u8> {
    packets.iter().flat_map(Packet::encode).collect()
}

/// An ftrace event's bytes: timestamp, pid and one payload field.
pub fn ftrace_event(ts: u64, pid: u32, number: u32, payload: &impl Message) -> Vec<u8> {
    let mut e = varint_field(1, ts);
    e.extend(varint_field(2, u64::from(pid)));
    e.extend(bytes_field(number, &payload.encode_to_vec()));
    e
}

/// An ftrace bundle for `cpu` holding `events` (already encoded).
pub fn bundle(cpu: u32, events: &[Vec<u8>]) -> Vec<u8> {
    let mut b = varint_field(1, u64::from(cpu));
    for e in events {
        b.extend(bytes_field(2, e));
    }
    b
}

/// A `print` event (atrace marker) written by `tid`.
pub fn print(ts: u64, tid: u32, text: &str) -> Vec<u8> {
    ftrace_event(
        ts,
        tid,
        3,
        &Print {
            buf: Some(format!("{text}\n").into_bytes()),
        },
    )
}

/// A `sched_switch` event.
pub fn switch(ts: u64, prev: (i32, &str, i64), next: (i32, &str)) -> Vec<u8> {
    ftrace_event(
        ts,
        prev.0 as u32,
        4,
        &SchedSwitch {
            prev_comm: Some(prev.1.as_bytes().to_vec()),
            prev_pid: Some(prev.0),
            prev_prio: Some(120),
            prev_state: Some(prev.2),
            next_comm: Some(next.1.as_bytes().to_vec()),
            next_pid: Some(next.0),
            next_prio: Some(100),
        },
    )
}

/// A thread track descriptor.
pub fn thread_track(uuid: u64, pid: i32, tid: i64, name: &str) -> TrackDescriptor {
    TrackDescriptor {
        uuid: Some(uuid),
        thread: Some(ThreadDescriptor {
            pid: Some(pid),
            tid: Some(tid),
            thread_name: Some(name.as_bytes().to_vec()),
        }),
        ..Default::default()
    }
}

/// A track event of `typ` on `track` named by `iid` (0: no name).
pub fn event(typ: i32, track: u64, iid: u64) -> TrackEvent {
    TrackEvent {
        r#type: Some(typ),
        track_uuid: Some(track),
        name_iid: (iid != 0).then_some(iid),
        ..Default::default()
    }
}

/// Interned event names `(iid, name)`.
pub fn names(list: &[(u64, &str)]) -> InternedData {
    InternedData {
        event_names: list
            .iter()
            .map(|(iid, n)| InternedString {
                iid: Some(*iid),
                name: Some(n.as_bytes().to_vec()),
            })
            .collect(),
        ..Default::default()
    }
}

/// A small trace touching every kind of packet the reader handles.
pub fn kitchen_sink() -> Vec<u8> {
    let snapshot = ClockSnapshot {
        clocks: vec![
            Clock {
                clock_id: Some(6),
                timestamp: Some(1_000_000),
                is_incremental: None,
                unit_multiplier_ns: None,
            },
            Clock {
                clock_id: Some(1),
                timestamp: Some(1_700_000_000_000_000_000),
                is_incremental: None,
                unit_multiplier_ns: None,
            },
        ],
        primary_trace_clock: Some(6),
    };
    let battery = BatteryCounters {
        charge_counter_uah: Some(3_000_000),
        capacity_percent: Some(87.5),
        current_ua: Some(-250_000),
        current_avg_ua: None,
        name: None,
        energy_counter_uwh: None,
        voltage_uv: Some(3_900_000),
    };
    trace(&[
        Packet::new().ts(1_000_000).seq(1).msg(6, &snapshot),
        Packet::new().seq(2).flags(1).msg(60, &thread_track(10, 5, 6, "ui")),
        Packet::new()
            .ts(1_000_100)
            .seq(2)
            .flags(2)
            .msg(11, &event(1, 10, 1))
            .msg(12, &names(&[(1, "frame")])),
        Packet::new().ts(1_000_900).seq(2).flags(2).msg(11, &event(2, 10, 0)),
        Packet::new().ts(1_000_500).seq(3).msg(38, &battery),
        Packet::new().seq(4).raw(
            1,
            &bundle(
                0,
                &[
                    switch(1_000_200, (0, "swapper/0", 0), (6, "ui")),
                    print(1_000_300, 6, "B|5|draw"),
                    print(1_000_400, 6, "C|5|queue|3"),
                    print(1_000_450, 6, "E|5"),
                    switch(1_000_600, (6, "ui", 1), (0, "swapper/0")),
                ],
            ),
        ),
    ])
}

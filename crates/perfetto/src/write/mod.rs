//! Writing a session as a Perfetto trace (see the crate docs for the
//! layout). Every packet but the ftrace bundles is on one trusted packet
//! sequence; its first packet clears the incremental state, and packets that
//! use interned names say they need it. Track events are written in time
//! order across all tracks (a k-way merge), as a live trace would be.

mod ftrace;

use crate::error::Error;
use crate::proto::{self, *};
use ftrace::{cpu_event, lanes};
use prost::Message;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Write;
use tracekit_model::{CallKind, ContextSamples, CounterKind, Session, ThreadId};

/// The sequence id of every packet this writer makes.
pub(crate) const SEQ: u32 = 1;
/// Output is handed to the writer in blocks of about this size.
const FLUSH: usize = 1 << 20;
/// ftrace events per written bundle.
pub(crate) const BUNDLE: usize = 4096;

/// Writes `session` as a Perfetto trace to `out`.
pub fn write(session: &Session, out: &mut impl Write) -> Result<(), Error> {
    let mut w = Writer {
        out,
        buf: Vec::with_capacity(FLUSH + 4096),
        packet: TracePacket::default(),
        first: true,
        base: base_time(session),
        method_sent: vec![false; session.methods.len()],
        names: FxHashMap::default(),
        next_iid: session.methods.len() as u64 + 1,
        categories: FxHashMap::default(),
        unwind_sent: false,
        next_uuid: 1,
    };
    w.clock_snapshot(session)?;
    let sources = w.descriptors(session)?;
    w.events(session, sources)?;
    w.sched(session)?;
    w.cpu_counters(session)?;
    w.out.write_all(&w.buf).map_err(Error::Write)?;
    w.out.flush().map_err(Error::Write)
}

/// The trace-clock time of timeline 0: the session's own origin when it
/// came from a BOOTTIME source, moved later when counters start before it.
fn base_time(s: &Session) -> u64 {
    let origin = s.source_clock.as_ref().map_or(0, |c| c.origin_ns.max(0));
    let earliest = s
        .counters
        .iter()
        .filter_map(|c| c.times.first())
        .chain(s.context.iter().filter_map(|c| c.times.first()))
        .copied()
        .min()
        .unwrap_or(0);
    origin.max(-earliest.min(0)) as u64
}

/// A counter to write: name, unit, process, kind, times, values.
type CounterData = (String, Option<String>, Option<u32>, CounterKind, Vec<i64>, Vec<f64>);

/// Prefix of the description that carries a counter's [`CounterKind`]
/// when it is not the default (Perfetto's descriptor has no such field).
pub(crate) const KIND_DESCRIPTION: &str = "tracekit counter kind: ";

/// Where the merged events come from.
enum Src {
    /// A thread's calls on track `uuid`, with its CPU-time track.
    Thread {
        t: ThreadId,
        uuid: u64,
        cpu: Option<u64>,
        pos: usize,
    },
    /// Markers (indices into `Session::markers`, in time order), each on its thread's track.
    Markers {
        order: Vec<usize>,
        tracks: Vec<u64>,
        pos: usize,
    },
    /// A counter track: `Session::counters[i]`, or a numeric context item.
    Counter {
        times: Vec<i64>,
        values: Vec<f64>,
        uuid: u64,
        pos: usize,
    },
    /// A text context item, written as instants named by the value.
    Text { i: usize, uuid: u64, pos: usize },
    /// One lane of async slices: (time, slice index, begin?) in order.
    Lane {
        events: Vec<(u64, usize, bool)>,
        uuid: u64,
        pos: usize,
    },
}

struct Writer<'a, W: Write> {
    out: &'a mut W,
    buf: Vec<u8>,
    packet: TracePacket,
    first: bool,
    base: u64,
    method_sent: Vec<bool>,
    names: FxHashMap<String, u64>,
    next_iid: u64,
    categories: FxHashMap<String, u64>,
    unwind_sent: bool,
    next_uuid: u64,
}

impl<W: Write> Writer<'_, W> {
    fn uuid(&mut self) -> u64 {
        self.next_uuid += 1;
        self.next_uuid - 1
    }

    /// Encodes `self.packet` as one `Trace.packet` field.
    fn emit(&mut self) -> Result<(), Error> {
        self.buf.push(0x0A);
        self.packet
            .encode_length_delimited(&mut self.buf)
            .map_err(|e| Error::Write(std::io::Error::other(e)))?;
        if self.buf.len() >= FLUSH {
            self.out.write_all(&self.buf).map_err(Error::Write)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Resets the reused packet for one packet of the sequence.
    fn start(&mut self, ts: Option<u64>) {
        let p = &mut self.packet;
        p.timestamp = ts;
        p.trusted_packet_sequence_id = Some(SEQ);
        p.sequence_flags = None;
        p.first_packet_on_sequence = None;
        p.interned_data = None;
        p.track_descriptor = None;
        p.clock_snapshot = None;
        p.ftrace_events = None;
        if let Some(te) = &mut p.track_event {
            te.category_iids.clear();
            te.name_iid = None;
            te.name = None;
            te.track_uuid = None;
            te.double_counter_value = None;
            te.extra_counter_track_uuids.clear();
            te.extra_counter_values.clear();
            te.debug_annotations.clear();
        }
        if std::mem::take(&mut self.first) {
            p.sequence_flags = Some(SEQ_INCREMENTAL_STATE_CLEARED);
            p.first_packet_on_sequence = Some(true);
        }
    }

    fn clock_snapshot(&mut self, s: &Session) -> Result<(), Error> {
        let clock = |id, ts| Clock {
            clock_id: Some(id),
            timestamp: Some(ts),
            is_incremental: None,
            unit_multiplier_ns: None,
        };
        let mut clocks = vec![clock(proto::clock::BOOTTIME, self.base)];
        if let Some(a) = s.anchor_unix_ns.filter(|&a| a >= 0) {
            clocks.push(clock(proto::clock::REALTIME, a as u64));
        }
        self.start(Some(self.base));
        self.packet.clock_snapshot = Some(ClockSnapshot {
            clocks,
            primary_trace_clock: Some(proto::clock::BOOTTIME as i32),
        });
        self.emit()
    }

    fn descriptor(&mut self, d: TrackDescriptor) -> Result<(), Error> {
        self.start(None);
        self.packet.track_descriptor = Some(d);
        self.emit()
    }

    /// Writes every track descriptor; returns the event sources.
    fn descriptors(&mut self, s: &Session) -> Result<Vec<Src>, Error> {
        let only_pid = (s.processes.len() == 1).then(|| s.processes[0].pid);
        let pid_of = |t: &tracekit_model::Thread| t.pid.or(only_pid).unwrap_or(t.tid);
        let mut pids: Vec<(u32, String)> = s.processes.iter().map(|p| (p.pid, p.name.clone())).collect();
        for t in &s.threads {
            let pid = pid_of(t);
            if !pids.iter().any(|(p, _)| *p == pid) {
                pids.push((pid, String::new()));
            }
        }
        let mut process_uuid = FxHashMap::default();
        for (pid, name) in pids {
            let uuid = self.uuid();
            process_uuid.insert(pid, uuid);
            self.descriptor(TrackDescriptor {
                uuid: Some(uuid),
                process: Some(ProcessDescriptor {
                    pid: Some(pid as i32),
                    cmdline: Vec::new(),
                    process_name: (!name.is_empty()).then(|| name.into_bytes()),
                }),
                ..Default::default()
            })?;
        }
        let mut sources = Vec::new();
        let mut thread_uuids = Vec::with_capacity(s.threads.len());
        for (t, thread, calls) in s.thread_calls() {
            let uuid = self.uuid();
            let pid = pid_of(thread);
            thread_uuids.push(uuid);
            self.descriptor(TrackDescriptor {
                uuid: Some(uuid),
                parent_uuid: process_uuid.get(&pid).copied(),
                thread: Some(ThreadDescriptor {
                    pid: Some(pid as i32),
                    tid: Some(i64::from(thread.tid)),
                    thread_name: (!thread.name.is_empty()).then(|| thread.name.clone().into_bytes()),
                }),
                ..Default::default()
            })?;
            let cpu = if s.clocks.thread_cpu && calls.has_cpu() {
                let c = self.uuid();
                self.descriptor(TrackDescriptor {
                    uuid: Some(c),
                    parent_uuid: Some(uuid),
                    counter: Some(CounterDescriptor {
                        r#type: Some(COUNTER_THREAD_TIME_NS),
                        unit: Some(counter_unit::TIME_NS),
                        ..Default::default()
                    }),
                    ..Default::default()
                })?;
                Some(c)
            } else {
                None
            };
            if !calls.is_empty() {
                sources.push(Src::Thread { t, uuid, cpu, pos: 0 });
            }
        }
        if !s.markers.is_empty() {
            let mut order: Vec<usize> = (0..s.markers.len()).collect();
            order.sort_by_key(|&i| s.markers[i].ts_ns);
            sources.push(Src::Markers {
                order,
                tracks: thread_uuids.clone(),
                pos: 0,
            });
        }
        // Counters and numeric context items: counter tracks with units.
        let numeric = s
            .context
            .iter()
            .filter(|c| c.kind() != tracekit_model::ContextType::String);
        let mut counters: Vec<CounterData> = numeric
            .map(|c| {
                let values = (0..c.len()).map(|i| c.samples.get_f64(i).unwrap_or(0.0)).collect();
                let kind = if c.kind().is_continuous() {
                    CounterKind::Sampled
                } else {
                    CounterKind::Level
                };
                (c.label.clone(), c.unit.clone(), None, kind, c.times.clone(), values)
            })
            .collect();
        for c in s.counters.iter().filter(|c| cpu_event(c).is_none()) {
            counters.push((
                c.name.clone(),
                c.unit.clone(),
                c.pid,
                c.kind,
                c.times.clone(),
                c.values.clone(),
            ));
        }
        for (name, unit, pid, kind, times, values) in counters {
            let uuid = self.uuid();
            let description = match kind {
                CounterKind::Level => None,
                CounterKind::Sampled => Some(format!("{KIND_DESCRIPTION}sampled").into_bytes()),
                CounterKind::Cumulative => Some(format!("{KIND_DESCRIPTION}cumulative").into_bytes()),
            };
            self.descriptor(TrackDescriptor {
                uuid: Some(uuid),
                parent_uuid: pid.and_then(|p| process_uuid.get(&p).copied()),
                name: Some(name.into_bytes()),
                description,
                counter: Some(CounterDescriptor {
                    unit_name: unit.map(String::into_bytes),
                    ..Default::default()
                }),
                ..Default::default()
            })?;
            sources.push(Src::Counter {
                times,
                values,
                uuid,
                pos: 0,
            });
        }
        for (i, c) in s.context.iter().enumerate() {
            if c.kind() == tracekit_model::ContextType::String {
                let uuid = self.uuid();
                self.descriptor(TrackDescriptor {
                    uuid: Some(uuid),
                    name: Some(c.label.clone().into_bytes()),
                    description: Some(crate::TEXT_CONTEXT_TRACK.as_bytes().to_vec()),
                    ..Default::default()
                })?;
                sources.push(Src::Text { i, uuid, pos: 0 });
            }
        }
        for (key, lane) in lanes(s) {
            let uuid = self.uuid();
            self.descriptor(TrackDescriptor {
                uuid: Some(uuid),
                parent_uuid: key.0.and_then(|p| process_uuid.get(&p).copied()),
                name: key.1.map(String::into_bytes),
                ..Default::default()
            })?;
            sources.push(Src::Lane {
                events: lane,
                uuid,
                pos: 0,
            });
        }
        Ok(sources)
    }

    /// The trace-clock time of timeline time `t`.
    fn at(&self, t: i64) -> u64 {
        (i128::from(self.base) + i128::from(t)).max(0) as u64
    }

    fn events(&mut self, s: &Session, mut sources: Vec<Src>) -> Result<(), Error> {
        let mut heap = BinaryHeap::with_capacity(sources.len());
        for (i, src) in sources.iter().enumerate() {
            if let Some(ts) = self.next_time(s, src) {
                heap.push(Reverse((ts, i)));
            }
        }
        while let Some(Reverse((_, i))) = heap.pop() {
            // Stay on this source while it is still the earliest (one
            // thread's calls come in runs): no heap traffic for those.
            loop {
                self.emit_next(s, &mut sources[i])?;
                let Some(ts) = self.next_time(s, &sources[i]) else {
                    break;
                };
                if heap.peek().is_some_and(|Reverse(top)| *top < (ts, i)) {
                    heap.push(Reverse((ts, i)));
                    break;
                }
            }
        }
        Ok(())
    }

    fn next_time(&self, s: &Session, src: &Src) -> Option<u64> {
        match src {
            Src::Thread { t, pos, .. } => s.calls(*t).times().get(*pos).map(|&ts| self.at(ts as i64)),
            Src::Markers { order, pos, .. } => order.get(*pos).map(|&i| self.at(s.markers[i].ts_ns as i64)),
            Src::Counter { times, pos, .. } => times.get(*pos).map(|&ts| self.at(ts)),
            Src::Text { i, pos, .. } => s.context[*i].times.get(*pos).map(|&ts| self.at(ts)),
            Src::Lane { events, pos, .. } => events.get(*pos).map(|e| self.at(e.0 as i64)),
        }
    }

    /// Resets the packet for a track event at `ts` on `track` and returns it.
    fn track_event(&mut self, ts: u64, track: u64, typ: i32) -> &mut TrackEvent {
        self.start(Some(ts));
        let te = self.packet.track_event.get_or_insert_with(Default::default);
        te.r#type = Some(typ);
        te.track_uuid = Some(track);
        te
    }

    /// The iid of a name other than a method's, interned on first use.
    fn name_iid(&mut self, name: &str) -> u64 {
        if let Some(&iid) = self.names.get(name) {
            return iid;
        }
        let iid = self.next_iid;
        self.next_iid += 1;
        self.names.insert(name.to_owned(), iid);
        self.intern().event_names.push(InternedString {
            iid: Some(iid),
            name: Some(name.as_bytes().to_vec()),
        });
        iid
    }

    /// The packet's interned data, created on first use; marks the packet
    /// as needing the sequence's incremental state.
    fn intern(&mut self) -> &mut InternedData {
        self.packet.interned_data.get_or_insert_with(Default::default)
    }

    fn needs_state(&mut self) {
        let f = self.packet.sequence_flags.unwrap_or(0);
        self.packet.sequence_flags = Some(f | SEQ_NEEDS_INCREMENTAL_STATE);
    }

    fn emit_next(&mut self, s: &Session, src: &mut Src) -> Result<(), Error> {
        match src {
            Src::Thread { t, uuid, cpu, pos } => {
                let e = s.calls(*t).get(*pos);
                *pos += 1;
                let ts = self.at(e.ts_ns as i64);
                let typ = if e.kind == CallKind::Enter {
                    event_type::SLICE_BEGIN
                } else {
                    event_type::SLICE_END
                };
                let (uuid, cpu) = (*uuid, *cpu);
                self.track_event(ts, uuid, typ);
                if let (Some(c), Some(v)) = (cpu, e.cpu_ns) {
                    let te = self.packet.track_event.get_or_insert_with(Default::default);
                    te.extra_counter_track_uuids.push(c);
                    te.extra_counter_values.push(v as i64);
                }
                match e.kind {
                    CallKind::Enter => {
                        let m = e.method.0 as usize;
                        if !self.method_sent[m] {
                            self.method_sent[m] = true;
                            let name = s.methods.get(e.method).display_name().into_bytes();
                            self.intern().event_names.push(InternedString {
                                iid: Some(m as u64 + 1),
                                name: Some(name),
                            });
                        }
                        let category = s.methods.get(e.method).module.as_deref().map(|c| self.category_iid(c));
                        let te = self.packet.track_event.get_or_insert_with(Default::default);
                        te.name_iid = Some(m as u64 + 1);
                        te.category_iids.extend(category);
                        self.needs_state();
                    }
                    CallKind::Unwind => {
                        if !std::mem::replace(&mut self.unwind_sent, true) {
                            self.intern().debug_annotation_names.push(InternedString {
                                iid: Some(1),
                                name: Some(crate::UNWIND_ANNOTATION.as_bytes().to_vec()),
                            });
                        }
                        let te = self.packet.track_event.get_or_insert_with(Default::default);
                        te.debug_annotations.push(DebugAnnotation {
                            name_iid: Some(1),
                            name: None,
                            bool_value: Some(true),
                        });
                        self.needs_state();
                    }
                    CallKind::Exit => {}
                }
            }
            Src::Markers { order, tracks, pos } => {
                let m = &s.markers[order[*pos]];
                *pos += 1;
                let track = tracks[m.thread.0 as usize];
                self.named_event(self.at(m.ts_ns as i64), track, event_type::INSTANT, &m.name);
            }
            Src::Counter {
                times,
                values,
                uuid,
                pos,
            } => {
                let ts = self.at(times[*pos]);
                let v = values[*pos];
                *pos += 1;
                self.track_event(ts, *uuid, event_type::COUNTER).double_counter_value = Some(v);
            }
            Src::Text { i, uuid, pos } => {
                let c = &s.context[*i];
                let name = match &c.samples {
                    ContextSamples::String(v) => v[*pos].clone(),
                    other => other.get(*pos).to_string(),
                };
                let ts = self.at(c.times[*pos]);
                *pos += 1;
                self.named_event(ts, *uuid, event_type::INSTANT, &name);
            }
            Src::Lane { events, uuid, pos } => {
                let (ts, k, begin) = events[*pos];
                *pos += 1;
                let ts = self.at(ts as i64);
                if begin {
                    self.named_event(ts, *uuid, event_type::SLICE_BEGIN, &s.async_slices[k].name);
                } else {
                    self.track_event(ts, *uuid, event_type::SLICE_END);
                }
            }
        }
        self.emit()
    }

    fn named_event(&mut self, ts: u64, track: u64, typ: i32, name: &str) {
        self.track_event(ts, track, typ);
        let iid = self.name_iid(name);
        self.packet.track_event.get_or_insert_with(Default::default).name_iid = Some(iid);
        self.needs_state();
    }

    fn category_iid(&mut self, c: &str) -> u64 {
        if let Some(&iid) = self.categories.get(c) {
            return iid;
        }
        let iid = self.categories.len() as u64 + 1;
        self.categories.insert(c.to_owned(), iid);
        self.intern().event_categories.push(InternedString {
            iid: Some(iid),
            name: Some(c.as_bytes().to_vec()),
        });
        iid
    }
}

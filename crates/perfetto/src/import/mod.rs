//! Turning packets into a session. [`Importer::packet`] takes one
//! `TracePacket`'s bytes at a time, so a file is read as a stream;
//! [`Importer::finish`] sorts what needs sorting, repairs what does not nest
//! and moves every time onto the session's timeline.
//!
//! While reading, times stay on the trace clock (absolute BOOTTIME ns): the
//! earliest event can come last (ftrace buffers are flushed per CPU), so the
//! timeline's origin is only known at the end.

mod clock;
mod event;
mod finish;
mod ftrace;
mod system;
mod threads;
mod track;
mod tracks;

use crate::names;
use crate::proto::{self, ClockSnapshot, InternedData, TracePacketDefaults};
use crate::repair;
use crate::wire::{Fields, Value, WireError, WireResult};
use prost::Message;
use rustc_hash::FxHashMap;
use tracekit_model::{Clocks, CounterTrack, MethodId, Session};

pub(crate) use ftrace::prev_state_bits;
pub(crate) use threads::Threads;

/// Interned strings of one sequence, with the method each event name
/// became once it was used for a thread slice.
#[derive(Debug, Default)]
pub(crate) struct Sequence {
    pub names: IidTable<(String, Option<MethodId>)>,
    pub categories: IidTable<String>,
    pub annotation_names: IidTable<String>,
    pub defaults: Option<TracePacketDefaults>,
    pub clocks: FxHashMap<u32, clock::SequenceClock>,
    /// Incremental counter tracks' running values on this sequence.
    pub counter_values: FxHashMap<u64, f64>,
    /// The thread a legacy `thread_descriptor` packet gave the sequence.
    pub thread: Option<u32>,
}

/// Keys (`number << 3 | wire type`) of the packet fields every track event
/// packet has.
const KEY_TIMESTAMP: u64 = 8 << 3;
const KEY_SEQUENCE: u64 = 10 << 3;
const KEY_FLAGS: u64 = 13 << 3;
const KEY_TRACK_EVENT: u64 = 11 << 3 | 2;

/// Bytes one `compressed_packets` field may inflate to (Perfetto keeps each
/// under 512 KiB compressed).
const MAX_INFLATED: usize = 64 << 20;

/// Interned entries by iid: small iids (writers count them up from 1) in a
/// vector, others in a map.
#[derive(Debug)]
pub(crate) struct IidTable<T> {
    dense: Vec<Option<T>>,
    sparse: FxHashMap<u64, T>,
}

impl<T> Default for IidTable<T> {
    fn default() -> Self {
        IidTable {
            dense: Vec::new(),
            sparse: FxHashMap::default(),
        }
    }
}

/// Iids below this are stored densely.
const DENSE_IIDS: u64 = 1 << 16;

impl<T> IidTable<T> {
    pub(crate) fn insert(&mut self, iid: u64, v: T) {
        if iid < DENSE_IIDS {
            let i = iid as usize;
            if self.dense.len() <= i {
                self.dense.resize_with(i + 1, || None);
            }
            self.dense[i] = Some(v);
        } else {
            self.sparse.insert(iid, v);
        }
    }

    #[inline]
    pub(crate) fn get(&self, iid: &u64) -> Option<&T> {
        if *iid < DENSE_IIDS {
            self.dense.get(*iid as usize)?.as_ref()
        } else {
            self.sparse.get(iid)
        }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, iid: &u64) -> Option<&mut T> {
        if *iid < DENSE_IIDS {
            self.dense.get_mut(*iid as usize)?.as_mut()
        } else {
            self.sparse.get_mut(iid)
        }
    }
}

/// Sequences by id, the last one used cached (consecutive packets are
/// mostly on one sequence).
#[derive(Debug, Default)]
pub(crate) struct Sequences {
    list: Vec<Sequence>,
    index: FxHashMap<u32, usize>,
    last: std::cell::Cell<Option<(u32, usize)>>,
}

impl Sequences {
    #[inline]
    fn find(&self, id: u32) -> Option<usize> {
        if let Some((l, i)) = self.last.get() {
            if l == id {
                return Some(i);
            }
        }
        let i = *self.index.get(&id)?;
        self.last.set(Some((id, i)));
        Some(i)
    }

    /// The sequence with this id, if it has been seen.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&Sequence> {
        self.find(id).map(|i| &self.list[i])
    }

    /// The sequence with this id, if it has been seen.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: u32) -> Option<&mut Sequence> {
        self.find(id).map(|i| &mut self.list[i])
    }

    /// The sequence with this id, created when new.
    #[inline]
    pub(crate) fn entry(&mut self, id: u32) -> &mut Sequence {
        let i = match self.find(id) {
            Some(i) => i,
            None => {
                self.list.push(Sequence::default());
                self.index.insert(id, self.list.len() - 1);
                self.list.len() - 1
            }
        };
        &mut self.list[i]
    }
}

/// Counts kept in plain integers while reading and turned into the
/// session's skipped counts and repairs at the end.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub skipped: FxHashMap<String, u64>,
    pub skipped_packet: FxHashMap<u32, u64>,
    pub skipped_ftrace: FxHashMap<u32, u64>,
    pub repairs: FxHashMap<&'static str, u64>,
}

impl Tally {
    pub(crate) fn skip(&mut self, kind: &str) {
        match self.skipped.get_mut(kind) {
            Some(n) => *n += 1,
            None => {
                self.skipped.insert(kind.to_owned(), 1);
            }
        }
    }

    pub(crate) fn repair(&mut self, code: &'static str) {
        *self.repairs.entry(code).or_default() += 1;
    }
}

/// The importer's state.
pub(crate) struct Importer {
    pub s: Session,
    pub threads: Threads,
    pub tally: Tally,
    pub clocks: clock::Clocks,
    pub sequences: Sequences,
    pub tracks: tracks::Tracks,
    pub ftrace: ftrace::FtraceState,
    /// Counter tracks by key (`cpu0 freq`, `pid 12 VSYNC`, …) → index.
    pub counter_index: FxHashMap<String, usize>,
    /// Times (trace clock) of each text context item's records, moved onto
    /// the timeline at the end.
    pub text_times: Vec<Vec<u64>>,
    /// Method of each thread-slice name, for names given inline.
    pub methods: FxHashMap<String, MethodId>,
    /// Earliest timestamp of any event but counter samples, earliest
    /// sample, and latest timestamp of anything (trace clock).
    pub min_ts: u64,
    pub min_sample: u64,
    pub max_ts: u64,
    /// Reading the packets of a `compressed_packets` field (never nested).
    inflating: bool,
}

impl Importer {
    pub(crate) fn new(name: &str) -> Importer {
        Importer {
            s: Session::new(name, Clocks::WALL),
            threads: Threads::default(),
            tally: Tally::default(),
            clocks: clock::Clocks::default(),
            sequences: Sequences::default(),
            tracks: tracks::Tracks::default(),
            ftrace: ftrace::FtraceState::default(),
            counter_index: FxHashMap::default(),
            methods: FxHashMap::default(),
            text_times: Vec::new(),
            min_ts: u64::MAX,
            min_sample: u64::MAX,
            max_ts: 0,
            inflating: false,
        }
    }

    /// Notes that an event happened at `ts` (trace clock).
    #[inline]
    pub(crate) fn saw(&mut self, ts: u64) {
        self.min_ts = self.min_ts.min(ts);
        self.max_ts = self.max_ts.max(ts);
    }

    /// Reads one `TracePacket`.
    pub(crate) fn packet(&mut self, body: &[u8]) -> WireResult<()> {
        let mut ts = None;
        let mut seq_id = 0u32;
        let mut flags = 0u32;
        let mut clock_id = None;
        let mut interned = None;
        let mut defaults = None;
        let mut data: Option<(u32, &[u8], usize)> = None;
        let mut fields = Fields::new(body);
        while let Some((key, offset)) = fields.next_key()? {
            // The fields of every track event packet, by whole key.
            match key {
                KEY_TIMESTAMP => {
                    ts = Some(fields.varint()?);
                    continue;
                }
                KEY_SEQUENCE => {
                    seq_id = fields.varint()? as u32;
                    continue;
                }
                KEY_FLAGS => {
                    flags |= fields.varint()? as u32;
                    continue;
                }
                KEY_TRACK_EVENT => {
                    data = Some((11, fields.bytes(offset)?, offset));
                    continue;
                }
                _ => {}
            }
            let f = fields.field(key, offset)?;
            match (f.number, f.value) {
                (8, v) => ts = v.as_u64(),
                (10, v) => seq_id = v.as_u64().unwrap_or(0) as u32,
                (13, v) => flags |= v.as_u64().unwrap_or(0) as u32,
                (41, v) if v.as_u64() == Some(1) => flags |= proto::SEQ_INCREMENTAL_STATE_CLEARED,
                (58, v) => clock_id = v.as_u64().map(|c| c as u32),
                (12, Value::Bytes(b)) => interned = Some((b, f.offset)),
                (59, Value::Bytes(b)) => defaults = Some((b, f.offset)),
                // Trusted uid/pid, loss flags, sequence start, machine id:
                // facts about the packet, not events.
                (3 | 41 | 42 | 79 | 87 | 98, _) => {}
                (1 | 2 | 6 | 11 | 38 | 40 | 43 | 44 | 45 | 50 | 60, Value::Bytes(b)) => {
                    data = Some((f.number, b, f.offset))
                }
                (1 | 2 | 6 | 11 | 38 | 40 | 43 | 44 | 45 | 50 | 60 | 12 | 59, _) => {
                    return Err(WireError {
                        offset: f.offset,
                        message: "packet field has the wrong wire type",
                    })
                }
                (n, _) => *self.tally.skipped_packet.entry(n).or_default() += 1,
            }
        }
        if flags & proto::SEQ_INCREMENTAL_STATE_CLEARED != 0 {
            let seq = self.sequences.entry(seq_id);
            let kept_clocks = std::mem::take(&mut seq.clocks);
            *seq = Sequence {
                clocks: kept_clocks,
                ..Sequence::default()
            };
        }
        if let Some((b, offset)) = defaults {
            let d = TracePacketDefaults::decode(b).map_err(|_| bad(offset, "malformed trace_packet_defaults"))?;
            self.sequences.entry(seq_id).defaults = Some(d);
        }
        if let Some((b, offset)) = interned {
            let d = InternedData::decode(b).map_err(|_| bad(offset, "malformed interned_data"))?;
            self.intern(seq_id, d);
        }
        let Some((number, payload, offset)) = data else {
            return Ok(());
        };
        let ts = ts.map(|t| self.trace_time(seq_id, clock_id, t));
        let inner = |e: WireError| WireError {
            offset: offset + e.offset,
            message: e.message,
        };
        match number {
            11 => self.track_event(seq_id, ts, payload).map_err(inner),
            60 => self.track_descriptor(payload).map_err(inner),
            1 => self.ftrace_bundle(payload).map_err(inner),
            2 => self.process_tree(payload).map_err(inner),
            6 => {
                let snap = ClockSnapshot::decode(payload).map_err(|_| bad(offset, "malformed clock_snapshot"))?;
                let scoped = self.clocks.snapshot(&snap);
                let seq = self.sequences.entry(seq_id);
                seq.clocks.extend(scoped);
                Ok(())
            }
            38 => self.battery(ts, payload).map_err(inner),
            40 => self.power_rails(ts, payload).map_err(inner),
            43 | 44 => self.legacy_descriptor(seq_id, number, payload).map_err(inner),
            45 => self.system_info(payload).map_err(inner),
            50 => self.compressed(payload).map_err(|e| bad(offset, e.message)),
            _ => Ok(()),
        }
    }

    /// `compressed_packets`: zlib-compressed `Trace` bytes, packets inside.
    /// Errors inside are reported at the compressed packet.
    fn compressed(&mut self, payload: &[u8]) -> WireResult<()> {
        use std::io::Read;
        if self.inflating {
            return Err(bad(0, "compressed_packets inside compressed_packets"));
        }
        let mut inflated = Vec::new();
        let limit = MAX_INFLATED as u64 + 1;
        flate2::read::ZlibDecoder::new(payload)
            .take(limit)
            .read_to_end(&mut inflated)
            .map_err(|_| bad(0, "compressed_packets do not inflate"))?;
        if inflated.len() > MAX_INFLATED {
            return Err(bad(0, "compressed_packets inflate past 64 MiB"));
        }
        self.inflating = true;
        let mut fields = Fields::new(&inflated);
        let result = (|| {
            while let Some(f) = fields.next_field()? {
                match (f.number, f.value) {
                    (1, Value::Bytes(b)) => self.packet(b)?,
                    (n, _) => self.tally.skip(&format!("trace field {n}")),
                }
            }
            Ok(())
        })();
        self.inflating = false;
        result
    }

    /// A packet timestamp on the trace clock.
    fn trace_time(&mut self, seq_id: u32, clock_id: Option<u32>, ts: u64) -> u64 {
        let seq = self.sequences.get_mut(seq_id);
        let id = clock_id
            .or_else(|| seq.as_ref()?.defaults.as_ref()?.timestamp_clock_id)
            .unwrap_or(proto::clock::BOOTTIME);
        if id == proto::clock::BOOTTIME {
            return ts;
        }
        if (64..=127).contains(&id) {
            if let Some(c) = seq.and_then(|s| s.clocks.get_mut(&id)) {
                return c.boot_time(ts);
            }
            self.clocks.unknown_clock += 1;
            return ts;
        }
        self.clocks.boot_time(id, ts)
    }

    fn intern(&mut self, seq_id: u32, d: InternedData) {
        let seq = self.sequences.entry(seq_id);
        for n in d.event_names {
            seq.names.insert(n.iid.unwrap_or(0), (text(n.name), None));
        }
        for n in d.event_categories {
            seq.categories.insert(n.iid.unwrap_or(0), text(n.name));
        }
        for n in d.debug_annotation_names {
            seq.annotation_names.insert(n.iid.unwrap_or(0), text(n.name));
        }
    }

    /// The counter track under `key`, created by `make` the first time.
    pub(crate) fn counter(&mut self, key: &str, make: impl FnOnce() -> CounterTrack) -> usize {
        if let Some(&i) = self.counter_index.get(key) {
            return i;
        }
        self.s.counters.push(make());
        let i = self.s.counters.len() - 1;
        self.counter_index.insert(key.to_owned(), i);
        i
    }

    /// Appends a sample (trace-clock time) to counter `i`.
    pub(crate) fn sample(&mut self, i: usize, ts: u64, value: f64) {
        self.min_sample = self.min_sample.min(ts);
        self.max_ts = self.max_ts.max(ts);
        self.s.counters[i].push(ts as i64, value);
    }

    /// Turns the tallies into the session's skipped counts and repairs.
    fn flush_tally(&mut self) {
        let mut skipped: Vec<(String, u64)> = std::mem::take(&mut self.tally.skipped).into_iter().collect();
        for (n, c) in std::mem::take(&mut self.tally.skipped_packet) {
            skipped.push((names::skipped_packet_kind(n), c));
        }
        for (n, c) in std::mem::take(&mut self.tally.skipped_ftrace) {
            skipped.push((names::skipped_ftrace_kind(n), c));
        }
        skipped.sort();
        for (k, c) in skipped {
            self.s.note_skipped(&k, c);
        }
        let mut repairs: Vec<(&'static str, u64)> = std::mem::take(&mut self.tally.repairs).into_iter().collect();
        repairs.sort();
        for (code, count) in repairs {
            self.s.note_repair(code, count, repair::describe(code));
        }
    }
}

/// A wire error at `offset` inside the current message.
pub(crate) fn bad(offset: usize, message: &'static str) -> WireError {
    WireError { offset, message }
}

/// Bytes as text, replacing what is not UTF-8 and dropping one trailing newline.
pub(crate) fn text(b: Option<Vec<u8>>) -> String {
    let b = b.unwrap_or_default();
    let mut s = match String::from_utf8(b) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    if s.ends_with('\n') {
        s.pop();
    }
    s
}

//! Tracks: descriptors as given, and what each track turns out to be once
//! an event needs it (thread, counter, the thread's CPU clock, a text
//! context item, or any other track, whose slices are async slices).

use super::{bad, text, Importer};
use crate::proto::{self, TrackDescriptor};
use crate::repair;
use crate::wire::WireResult;
use prost::Message;
use rustc_hash::FxHashMap;
use tracekit_model::{AsyncSlice, ContextTrack, ContextType, CounterKind, CounterTrack, ThreadId};

/// The track of a thread that a legacy `thread_descriptor` packet gave a
/// sequence: this bit plus the tid (registered when first used, so a real
/// uuid with the bit set is never mistaken for one).
pub(super) const LEGACY_THREAD_TRACK: u64 = 1 << 63;

/// A track descriptor, as given.
#[derive(Debug, Clone, Default)]
pub(crate) struct Desc {
    parent: Option<u64>,
    name: String,
    pid: Option<u32>,
    tid: Option<u32>,
    counter: Option<proto::CounterDescriptor>,
    text_context: bool,
    kind: Option<CounterKind>,
}

/// What a track turned out to be.
#[derive(Debug)]
pub(crate) enum Kind {
    Thread(ThreadId),
    Span {
        name: String,
        pid: Option<u32>,
        thread: Option<ThreadId>,
        /// Open slices: name, start, category.
        open: Vec<(String, u64, Option<String>)>,
    },
    Counter {
        index: usize,
        incremental: bool,
        multiplier: f64,
    },
    /// A text context item: `Session::context[index]`.
    Text(usize),
    ThreadTime {
        incremental: bool,
        multiplier: u64,
    },
}

/// An event whose track was not described yet.
#[derive(Debug)]
pub(crate) struct Pending {
    pub uuid: u64,
    pub typ: i32,
    pub ts: u64,
    pub name: String,
    pub category: Option<String>,
    pub unwind: bool,
    pub value: Option<f64>,
}

/// Every track seen.
#[derive(Debug)]
pub(crate) struct Tracks {
    descs: FxHashMap<u64, Desc>,
    /// Resolved tracks: uuid and kind.
    pub kinds: Vec<(u64, Kind)>,
    index: FxHashMap<u64, usize>,
    /// A direct-mapped cache of `index` (an event touches two or three
    /// tracks: its own and its extra counters').
    cache: [(u64, usize); 64],
    pub pending: Vec<Pending>,
}

impl Default for Tracks {
    fn default() -> Tracks {
        Tracks {
            descs: FxHashMap::default(),
            kinds: Vec::new(),
            index: FxHashMap::default(),
            cache: [(0, usize::MAX); 64],
            pending: Vec::new(),
        }
    }
}

impl Tracks {
    /// The index of a resolved track.
    #[inline]
    pub(super) fn lookup(&mut self, uuid: u64) -> Option<usize> {
        let slot = ((uuid ^ (uuid >> 29)) & 63) as usize;
        let (u, i) = self.cache[slot];
        if u == uuid && i != usize::MAX {
            return Some(i);
        }
        let i = *self.index.get(&uuid)?;
        self.cache[slot] = (uuid, i);
        Some(i)
    }

    pub(super) fn insert(&mut self, uuid: u64, kind: Kind) -> usize {
        self.kinds.push((uuid, kind));
        self.index.insert(uuid, self.kinds.len() - 1);
        self.kinds.len() - 1
    }
}

/// The counter kind this crate's writer put in a track's description.
fn counter_kind(description: &[u8]) -> Option<CounterKind> {
    match description.strip_prefix(crate::write::KIND_DESCRIPTION.as_bytes())? {
        b"sampled" => Some(CounterKind::Sampled),
        b"cumulative" => Some(CounterKind::Cumulative),
        b"level" => Some(CounterKind::Level),
        _ => None,
    }
}

impl Importer {
    pub(crate) fn track_descriptor(&mut self, payload: &[u8]) -> WireResult<()> {
        let d = TrackDescriptor::decode(payload).map_err(|_| bad(0, "malformed track_descriptor"))?;
        let Some(uuid) = d.uuid else {
            self.tally.repair(repair::UNKNOWN_TRACK);
            return Ok(());
        };
        if let Some(p) = &d.process {
            self.describe_process(p);
        }
        let tid = d.thread.as_ref().and_then(|t| self.describe_thread(t));
        if let Some(t) = tid {
            // A thread track declares its thread, events or not.
            self.threads.id(&mut self.s, t);
        }
        let pid = d
            .process
            .as_ref()
            .and_then(|p| p.pid)
            .or_else(|| d.thread.as_ref()?.pid)
            .map(|p| p as u32);
        let name = d
            .name
            .or(d.static_name)
            .or(d.atrace_name)
            .map(|n| text(Some(n)))
            .unwrap_or_default();
        self.tracks.descs.entry(uuid).or_insert(Desc {
            parent: d.parent_uuid.filter(|&p| p != 0),
            name,
            pid,
            tid,
            counter: d.counter,
            text_context: d.description.as_deref() == Some(crate::TEXT_CONTEXT_TRACK.as_bytes()),
            kind: d.description.as_deref().and_then(counter_kind),
        });
        Ok(())
    }

    /// Resolves `uuid` to a kind; `None` when no descriptor says what it is.
    #[inline]
    pub(super) fn resolve(&mut self, uuid: u64) -> Option<usize> {
        if let Some(i) = self.tracks.lookup(uuid) {
            return Some(i);
        }
        self.resolve_new(uuid)
    }

    fn resolve_new(&mut self, uuid: u64) -> Option<usize> {
        let d = self.tracks.descs.get(&uuid).cloned()?;
        // The process is the nearest ancestor's that names one; a child of
        // a thread track belongs to that thread (an async track of it, or
        // its CPU clock).
        let mut pid = d.pid;
        let mut up = d.parent;
        for _ in 0..16 {
            let Some(p) = up.and_then(|u| self.tracks.descs.get(&u)) else {
                break;
            };
            pid = pid.or(p.pid);
            up = p.parent;
        }
        let tid = d.tid;
        let parent_tid = d.parent.and_then(|u| self.tracks.descs.get(&u)).and_then(|p| p.tid);
        let parent_thread = parent_tid.map(|t| self.threads.id(&mut self.s, t));
        let kind = if let Some(c) = &d.counter {
            let incremental = c.is_incremental.unwrap_or(false);
            let multiplier = c.unit_multiplier.filter(|&m| m > 0).unwrap_or(1);
            match (c.r#type, parent_thread) {
                (Some(proto::COUNTER_THREAD_TIME_NS), Some(_)) => Kind::ThreadTime {
                    incremental,
                    multiplier: multiplier as u64,
                },
                _ => {
                    let unit = c.unit_name.clone().map(|u| text(Some(u))).or(match c.unit {
                        Some(proto::counter_unit::TIME_NS) => Some("ns".to_owned()),
                        Some(proto::counter_unit::SIZE_BYTES) => Some("B".to_owned()),
                        _ => None,
                    });
                    let name = if d.name.is_empty() {
                        format!("counter {uuid}")
                    } else {
                        d.name.clone()
                    };
                    let key = format!("track {uuid}");
                    let index = self.counter(&key, || {
                        let mut t = CounterTrack::new(name, unit.as_deref()).with_kind(d.kind.unwrap_or_default());
                        t.pid = pid;
                        t
                    });
                    Kind::Counter {
                        index,
                        incremental,
                        multiplier: multiplier as f64,
                    }
                }
            }
        } else if let Some(t) = tid {
            Kind::Thread(self.threads.id(&mut self.s, t))
        } else if d.text_context {
            self.s
                .context
                .push(ContextTrack::new(d.name.clone(), ContextType::String));
            self.text_times.push(Vec::new());
            Kind::Text(self.s.context.len() - 1)
        } else {
            Kind::Span {
                name: d.name.clone(),
                pid,
                thread: parent_thread,
                open: Vec::new(),
            }
        };
        Some(self.tracks.insert(uuid, kind))
    }

    /// Places the events whose tracks were described after them.
    pub(crate) fn place_pending(&mut self) {
        let pending = std::mem::take(&mut self.tracks.pending);
        for p in pending {
            let track = match self.resolve(p.uuid) {
                Some(t) => t,
                None => {
                    self.tally.repair(repair::UNKNOWN_TRACK);
                    let kind = Kind::Span {
                        name: format!("track {}", p.uuid),
                        pid: None,
                        thread: None,
                        open: Vec::new(),
                    };
                    self.tracks.insert(p.uuid, kind)
                }
            };
            self.place(track, p.typ, p.ts, p.name, p.category, p.unwind, p.value, None);
        }
    }

    /// Slices still open on non-thread tracks at the end of the trace.
    pub(crate) fn close_open_spans(&mut self) {
        let mut open_count = 0;
        for (uuid, kind) in &mut self.tracks.kinds {
            let uuid = *uuid;
            if let Kind::Span {
                name: track,
                pid,
                thread,
                open,
            } = kind
            {
                for (name, start, category) in open.drain(..) {
                    open_count += 1;
                    self.s.async_slices.push(AsyncSlice {
                        name,
                        category: if track.is_empty() {
                            category
                        } else {
                            Some(track.clone())
                        },
                        cookie: uuid,
                        pid: *pid,
                        thread: *thread,
                        ts_ns: start,
                        dur_ns: 0,
                        open: true,
                    });
                }
            }
        }
        for _ in 0..open_count {
            self.tally.repair(repair::OPEN_AT_END);
        }
    }
}

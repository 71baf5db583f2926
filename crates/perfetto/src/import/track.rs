//! Track descriptors and track events.
//!
//! A track is what its descriptor makes it: a thread track (its slices are
//! calls, its instants markers), a counter track (a `CounterTrack`, or the
//! thread's CPU clock when it is a `COUNTER_THREAD_TIME_NS` child of a
//! thread track), or any other track, process or async (its slices are
//! `AsyncSlice`s, its instants zero-length ones). Events that name a track
//! whose descriptor has not come yet are held and placed at the end.

use super::event::{annotations, EventView, List};
use super::tracks::{Kind, Pending, LEGACY_THREAD_TRACK};
use super::Importer;
use crate::proto::event_type;
use crate::repair;
use crate::wire::WireResult;
use crate::UNWIND_ANNOTATION;
use tracekit_model::{AsyncSlice, ContextSamples, Marker, Method, MethodId};

impl Importer {
    pub(crate) fn track_event(&mut self, seq_id: u32, ts: Option<u64>, payload: &[u8]) -> WireResult<()> {
        let mut ev = EventView::default();
        EventView::parse(&mut ev, payload)?;
        let Some(ts) = ts.or(ev.timestamp_absolute_us.map(|us| us.max(0) as u64 * 1_000)) else {
            self.tally.repair(repair::NO_TIMESTAMP);
            return Ok(());
        };
        let typ = ev.typ;
        if !(event_type::SLICE_BEGIN..=event_type::COUNTER).contains(&typ) {
            self.tally.skip(if typ == 0 {
                "track_event legacy"
            } else {
                "track_event other type"
            });
            return Ok(());
        }
        if ev.overflow {
            self.tally.skip("track_event extra counter values beyond 4");
        }
        let seq = self.sequences.entry(seq_id);
        let defaults = seq.defaults.as_ref().and_then(|d| d.track_event_defaults.as_ref());
        let legacy_thread = seq.thread;
        let uuid = ev.track_uuid.filter(|&u| u != 0).or_else(|| defaults?.track_uuid);
        let uuid = match (uuid, legacy_thread) {
            (Some(u), _) => u,
            (None, Some(tid)) => {
                // The sequence's thread (a legacy thread_descriptor packet).
                let u = LEGACY_THREAD_TRACK | u64::from(tid);
                if self.tracks.lookup(u).is_none() {
                    let t = self.threads.id(&mut self.s, tid);
                    self.tracks.insert(u, Kind::Thread(t));
                }
                u
            }
            (None, None) => {
                self.tally.repair(repair::UNKNOWN_TRACK);
                return Ok(());
            }
        };
        // Extra counters: the thread's CPU clock, or samples of other counters.
        let mut cpu = ev.thread_time_absolute_us.map(|us| us.max(0) as u64 * 1_000);
        if !ev.extra_values.is_empty() || !ev.extra_double_values.is_empty() {
            // The event's own track lists, else the sequence's defaults
            // (copied: counting the values borrows the importer).
            if ev.extra_ids.is_empty() {
                if let Some(d) = defaults {
                    ev.extra_ids = List::from_slice(&d.extra_counter_track_uuids);
                }
            }
            if ev.extra_double_ids.is_empty() {
                if let Some(d) = defaults {
                    ev.extra_double_ids = List::from_slice(&d.extra_double_counter_track_uuids);
                }
            }
            let (ids, dids) = (ev.extra_ids.as_slice(), ev.extra_double_ids.as_slice());
            let ints = ids.iter().zip(ev.extra_values.as_slice());
            let doubles = dids.iter().zip(ev.extra_double_values.as_slice());
            for (&id, &v) in ints.chain(doubles) {
                if let Some(c) = self.counter_value(seq_id, id, ts, v) {
                    cpu = Some(c);
                }
            }
        }
        let unwind = typ == event_type::SLICE_END && ev.annotated && self.is_unwind(seq_id, payload)?;
        let value = ev.counter_value;
        let Some(track) = self.resolve(uuid) else {
            let (name, category) = self.event_name(seq_id, &ev);
            self.tracks.pending.push(Pending {
                uuid,
                typ,
                ts,
                name,
                category,
                unwind,
                value,
            });
            return Ok(());
        };
        match (&self.tracks.kinds[track].1, typ) {
            // The hot path: calls, their methods cached per interned name.
            (Kind::Thread(t), event_type::SLICE_BEGIN) => {
                let t = *t;
                let m = self.event_method(seq_id, &ev);
                self.push_enter(t, m, ts, cpu);
                return Ok(());
            }
            (Kind::Thread(t), event_type::SLICE_END) => {
                let t = *t;
                self.push_exit(t, unwind, ts, cpu);
                return Ok(());
            }
            _ => {}
        }
        let (name, category) = if typ == event_type::SLICE_END || typ == event_type::COUNTER {
            (String::new(), None)
        } else {
            self.event_name(seq_id, &ev)
        };
        self.place(track, typ, ts, name, category, unwind, value, cpu);
        Ok(())
    }

    /// Puts an event on its (resolved) track.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn place(
        &mut self,
        track: usize,
        typ: i32,
        ts: u64,
        name: String,
        category: Option<String>,
        unwind: bool,
        value: Option<f64>,
        cpu: Option<u64>,
    ) {
        let (uuid, kind) = &mut self.tracks.kinds[track];
        let uuid = *uuid;
        match (kind, typ) {
            (Kind::Thread(t), event_type::SLICE_BEGIN) => {
                let t = *t;
                let m = self.method(&name, category);
                self.push_enter(t, m, ts, cpu);
            }
            (Kind::Thread(t), event_type::SLICE_END) => {
                let t = *t;
                self.push_exit(t, unwind, ts, cpu);
            }
            (Kind::Thread(t), event_type::INSTANT) => {
                let thread = *t;
                self.saw(ts);
                self.s.markers.push(Marker {
                    ts_ns: ts,
                    thread,
                    name,
                });
            }
            (Kind::Span { open, .. }, event_type::SLICE_BEGIN) => {
                open.push((name, ts, category));
                self.saw(ts);
            }
            (
                Kind::Span {
                    open,
                    name: track,
                    pid,
                    thread,
                },
                event_type::SLICE_END,
            ) => {
                let Some((name, start, category)) = open.pop() else {
                    self.tally.repair(repair::END_WITHOUT_BEGIN);
                    return;
                };
                let slice = AsyncSlice {
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
                    dur_ns: ts.saturating_sub(start),
                    open: false,
                };
                self.saw(ts);
                self.s.async_slices.push(slice);
            }
            (
                Kind::Span {
                    name: track,
                    pid,
                    thread,
                    ..
                },
                event_type::INSTANT,
            ) => {
                let slice = AsyncSlice {
                    name,
                    category: if track.is_empty() {
                        category
                    } else {
                        Some(track.clone())
                    },
                    cookie: uuid,
                    pid: *pid,
                    thread: *thread,
                    ts_ns: ts,
                    dur_ns: 0,
                    open: false,
                };
                self.saw(ts);
                self.s.async_slices.push(slice);
            }
            (Kind::Text(i), event_type::INSTANT) => {
                let i = *i;
                self.min_sample = self.min_sample.min(ts);
                self.max_ts = self.max_ts.max(ts);
                self.text_times[i].push(ts);
                self.s.context[i].samples =
                    match std::mem::replace(&mut self.s.context[i].samples, ContextSamples::String(Vec::new())) {
                        ContextSamples::String(mut v) => {
                            v.push(name);
                            ContextSamples::String(v)
                        }
                        other => other,
                    };
            }
            (Kind::Counter { .. } | Kind::ThreadTime { .. }, event_type::COUNTER) => {
                if let Some(v) = value {
                    self.counter_sample(0, track, ts, v);
                }
            }
            _ => self.tally.skip("track_event on a track of another kind"),
        }
    }

    /// A sample of counter track `uuid`; returns the thread-CPU time when
    /// the track is a thread's CPU clock.
    fn counter_value(&mut self, seq_id: u32, uuid: u64, ts: u64, raw: f64) -> Option<u64> {
        let Some(track) = self.resolve(uuid) else {
            self.tally.repair(repair::UNKNOWN_TRACK);
            return None;
        };
        self.counter_sample(seq_id, track, ts, raw)
    }

    /// A sample of resolved track `track` (see [`Importer::counter_value`]).
    fn counter_sample(&mut self, seq_id: u32, track: usize, ts: u64, raw: f64) -> Option<u64> {
        let (uuid, kind) = &self.tracks.kinds[track];
        let uuid = *uuid;
        let (incremental, index, multiplier, thread_time) = match kind {
            Kind::Counter {
                index,
                incremental,
                multiplier,
            } => (*incremental, Some(*index), *multiplier, false),
            Kind::ThreadTime {
                incremental,
                multiplier,
                ..
            } => (*incremental, None, *multiplier as f64, true),
            _ => return None,
        };
        let mut v = raw;
        if incremental {
            let seq = self.sequences.entry(seq_id);
            let acc = seq.counter_values.entry(uuid).or_default();
            *acc += raw;
            v = *acc;
        }
        v *= multiplier;
        if thread_time {
            return Some(v.max(0.0) as u64);
        }
        self.sample(index?, ts, v);
        None
    }

    /// True when a slice end carries this crate's unwind annotation.
    fn is_unwind(&self, seq_id: u32, payload: &[u8]) -> WireResult<bool> {
        Ok(annotations(payload)?.iter().any(|a| {
            let named = match (&a.name, a.name_iid) {
                (Some(n), _) => n == UNWIND_ANNOTATION.as_bytes(),
                (None, Some(iid)) => self
                    .sequences
                    .get(seq_id)
                    .and_then(|s| s.annotation_names.get(&iid))
                    .is_some_and(|n| n == UNWIND_ANNOTATION),
                _ => false,
            };
            named && a.bool_value == Some(true)
        }))
    }

    /// The event's name and first category, as text.
    fn event_name(&mut self, seq_id: u32, ev: &EventView<'_>) -> (String, Option<String>) {
        let seq = self.sequences.get(seq_id);
        let name = match (ev.name, ev.name_iid) {
            (Some(n), _) => String::from_utf8_lossy(n).into_owned(),
            (None, Some(iid)) => match seq.and_then(|s| s.names.get(&iid)) {
                Some((n, _)) => n.clone(),
                None => {
                    self.tally.repair(repair::UNKNOWN_IID);
                    format!("(name #{iid})")
                }
            },
            (None, None) => String::new(),
        };
        let category = match (ev.category, ev.category_iid) {
            (Some(c), _) => Some(String::from_utf8_lossy(c).into_owned()),
            (None, Some(iid)) => seq.and_then(|s| s.categories.get(&iid)).cloned(),
            (None, None) => None,
        };
        (name, category)
    }

    /// The method a thread slice's name stands for.
    fn event_method(&mut self, seq_id: u32, ev: &EventView<'_>) -> MethodId {
        if let (None, Some(iid)) = (ev.name, ev.name_iid) {
            if let Some((_, Some(m))) = self.sequences.get(seq_id).and_then(|s| s.names.get(&iid)) {
                return *m;
            }
            let (name, category) = self.event_name(seq_id, ev);
            let m = self.method(&name, category);
            if let Some(entry) = self.sequences.get_mut(seq_id).and_then(|s| s.names.get_mut(&iid)) {
                entry.1 = Some(m);
            }
            return m;
        }
        let (name, category) = self.event_name(seq_id, ev);
        self.method(&name, category)
    }

    /// The method named `name` (a slice name): `Method::new("", name, "")`,
    /// its module the slice's category the first time the name is seen.
    pub(crate) fn method(&mut self, name: &str, category: Option<String>) -> MethodId {
        if let Some(&m) = self.methods.get(name) {
            return m;
        }
        let mut method = Method::new("", if name.is_empty() { "(unnamed)" } else { name }, "");
        method.module = category;
        let m = self.s.methods.intern(method);
        self.methods.insert(name.to_owned(), m);
        m
    }
}

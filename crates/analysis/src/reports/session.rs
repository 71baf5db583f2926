//! `info`, `context` and `replay` reports.

use super::us;
use crate::context::{snapshot, ContextReading};
use crate::listing::ListedEvent;
use serde::Serialize;
use tracekit_model::Session;

/// What a session contains (`tracekit info --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    /// Session name.
    pub name: String,
    /// `dual`, `wall` or `thread-cpu`.
    pub clock: &'static str,
    /// Wall-clock start, µs since the Unix epoch, when known.
    pub start_unix_us: Option<i64>,
    /// Length of the session (the recorded one, else the last event), µs.
    pub duration_us: f64,
    /// Number of methods (functions).
    pub methods: usize,
    /// Number of call events (enters and exits).
    pub call_events: usize,
    /// Threads with their call events.
    pub threads: Vec<ThreadSummary>,
    /// Context items (context tracks).
    pub context: Vec<ContextItemSummary>,
    /// Key/value properties from the input, as `[key, value]` pairs.
    pub properties: Vec<(String, String)>,
    /// Repairs the reader made.
    pub repairs: Vec<RepairSummary>,
    /// Events lost while recording (a full buffer), counted.
    pub lost_events: u64,
    /// Numeric counter tracks (power, CPU frequency, app counters).
    pub counters: Vec<CounterSummary>,
    /// Scheduling slices (which thread each CPU ran).
    pub sched_slices: usize,
    /// Spans that are not calls on a stack (async slices).
    pub async_slices: usize,
    /// Instant markers.
    pub markers: usize,
    /// Events the reader read but tracekit does not use, per kind.
    pub skipped: Vec<SkippedSummary>,
}

/// One counter track of a [`SessionSummary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CounterSummary {
    /// Track name.
    pub name: String,
    /// Unit, when known.
    pub unit: Option<String>,
    /// Number of samples.
    pub samples: usize,
    /// Process it belongs to, if any.
    pub pid: Option<u32>,
    /// CPU it belongs to, if any.
    pub cpu: Option<u32>,
    /// `level`, `sampled` or `cumulative`.
    pub kind: tracekit_model::CounterKind,
}

/// Events of one kind a reader counted but did not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedSummary {
    /// Event kind (ftrace event name, Perfetto packet field, Chrome phase).
    pub kind: String,
    /// How many.
    pub count: u64,
}

/// One thread of a [`SessionSummary`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThreadSummary {
    /// Thread id.
    pub tid: u32,
    /// Thread name (or a label made from the id).
    pub name: String,
    /// Its call events.
    pub call_events: usize,
}

/// One context item of a [`SessionSummary`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextItemSummary {
    /// Label.
    pub label: String,
    /// `int`, `long`, `float`, `double` or `string`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Number of records.
    pub records: usize,
    /// Unit, when known.
    pub unit: Option<String>,
}

/// One repair of a [`SessionSummary`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepairSummary {
    /// Stable code (`clock-wrap`, `open-at-end`, …).
    pub code: String,
    /// How often it happened.
    pub count: u64,
    /// What was repaired, for people.
    pub detail: String,
}

impl SessionSummary {
    /// Summarises `s`.
    pub fn of(s: &Session) -> SessionSummary {
        let span = s.time_span().unwrap_or((0, 0));
        SessionSummary {
            name: s.name.clone(),
            clock: s.clocks.name(),
            start_unix_us: s.anchor_unix_ns.map(|n| n / 1000),
            duration_us: us(s.duration_ns.unwrap_or(span.1)),
            methods: s.methods.len(),
            call_events: s.call_event_count(),
            threads: s
                .thread_calls()
                .map(|(_, t, c)| ThreadSummary {
                    tid: t.tid,
                    name: t.label(),
                    call_events: c.len(),
                })
                .collect(),
            context: s
                .context
                .iter()
                .map(|t| ContextItemSummary {
                    label: t.label.clone(),
                    kind: t.kind().name(),
                    records: t.len(),
                    unit: t.unit.clone(),
                })
                .collect(),
            properties: s.properties.clone(),
            repairs: s
                .repairs
                .iter()
                .map(|r| RepairSummary {
                    code: r.code.clone(),
                    count: r.count,
                    detail: r.detail.clone(),
                })
                .collect(),
            lost_events: s.lost_events,
            counters: s
                .counters
                .iter()
                .map(|c| CounterSummary {
                    name: c.name.clone(),
                    unit: c.unit.clone(),
                    samples: c.len(),
                    pid: c.pid,
                    cpu: c.cpu,
                    kind: c.kind,
                })
                .collect(),
            sched_slices: s.sched.len(),
            async_slices: s.async_slices.len(),
            markers: s.markers.len(),
            skipped: s
                .skipped
                .iter()
                .map(|(kind, count)| SkippedSummary {
                    kind: kind.clone(),
                    count: *count,
                })
                .collect(),
        }
    }
}

/// Every context item's value at an instant (`tracekit context --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextReport {
    /// The instant, µs on the session's timeline.
    pub at_us: f64,
    /// Each item's value there (`null` when undefined).
    pub context: Vec<ContextReading>,
}

impl ContextReport {
    /// The context of `s` at `at_us` µs (rounded to the nearest ns).
    pub fn at(s: &Session, at_us: f64) -> ContextReport {
        ContextReport {
            at_us,
            context: snapshot(s, (at_us * 1000.0).round() as i64),
        }
    }
}

/// The replay listing (`tracekit replay --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListingReport {
    /// Events in listing order.
    pub events: Vec<ListedEvent>,
    /// Events lost while recording.
    pub lost_events: u64,
}

//! The small tables of a session (everything but `call`), built whole.

use crate::rows::{Rows, Value};
use crate::schema::{table, Table};
use datafusion::arrow::record_batch::RecordBatch;
use tracekit_model::{ContextSamples, CounterKind, ObjectEventKind, RemoteCallKind, Session};

/// A session and what the schema says about where it came from.
#[derive(Debug)]
pub struct SessionSource {
    /// The session's id (the `session` column).
    pub id: String,
    /// The input it was read from.
    pub source: String,
    /// The input's format.
    pub format: String,
    /// The session.
    pub session: Session,
}

/// The name of every table [`batch`] builds.
pub const SMALL_TABLES: &[&str] = &[
    "session",
    "property",
    "process",
    "thread",
    "method",
    "counter_track",
    "counter",
    "context_track",
    "context",
    "marker",
    "object_event",
    "remote_call",
    "sched",
    "async_slice",
    "import_note",
];

fn t(name: &str) -> &'static Table {
    table(name).unwrap_or_else(|| panic!("table {name} is in the schema"))
}

/// Table `name` of one session as one batch (`with_session`: with the
/// trailing `session` column). `None` for a table that is not one of
/// [`SMALL_TABLES`].
pub fn batch(name: &str, s: &SessionSource, with_session: bool) -> Option<RecordBatch> {
    let session = &s.session;
    let mut rows = Rows::new(t(name));
    match name {
        "session" => {
            let horizon = tracekit_analysis::problems::horizon(session);
            rows.push(&[
                session.name.as_str().into(),
                s.source.as_str().into(),
                s.format.as_str().into(),
                session.clocks.name().into(),
                session.anchor_unix_ns.into(),
                session.duration_ns.into(),
                horizon.into(),
                session.lost_events.into(),
            ]);
        }
        "property" => {
            for (k, v) in &session.properties {
                rows.push(&[k.into(), v.into()]);
            }
        }
        "process" => {
            for p in &session.processes {
                rows.push(&[p.pid.into(), (&p.name).into()]);
            }
        }
        "thread" => {
            for (i, th) in session.threads.iter().enumerate() {
                rows.push(&[(i as u32).into(), th.tid.into(), th.pid.into(), (&th.name).into()]);
            }
        }
        "method" => {
            for (id, m) in session.methods.iter() {
                let qualified = m.qualified_name();
                rows.push(&[
                    id.0.into(),
                    (&m.class).into(),
                    (&m.name).into(),
                    (&m.signature).into(),
                    qualified.as_str().into(),
                    m.source_file.as_ref().into(),
                    m.line.into(),
                    m.module.as_ref().into(),
                    m.address.into(),
                ]);
            }
        }
        "counter_track" => {
            for (i, c) in session.counters.iter().enumerate() {
                rows.push(&[
                    (i as u32).into(),
                    (&c.name).into(),
                    c.unit.as_ref().into(),
                    counter_kind(c.kind).into(),
                    c.pid.into(),
                    c.cpu.into(),
                    c.wraps_at.into(),
                ]);
            }
        }
        "counter" => {
            for (i, c) in session.counters.iter().enumerate() {
                for (&ts, &v) in c.times.iter().zip(&c.values) {
                    rows.push(&[(i as u32).into(), ts.into(), v.into()]);
                }
            }
        }
        "context_track" => {
            for (i, c) in session.context.iter().enumerate() {
                let kind = c.kind();
                rows.push(&[
                    (i as u32).into(),
                    (&c.label).into(),
                    kind.name().into(),
                    c.unit.as_ref().into(),
                    kind.is_continuous().into(),
                ]);
            }
        }
        "context" => context_rows(session, &mut rows),
        "marker" => {
            for m in &session.markers {
                rows.push(&[m.ts_ns.into(), m.thread.0.into(), (&m.name).into()]);
            }
        }
        "object_event" => {
            for o in &session.objects {
                rows.push(&[
                    o.ts_ns.into(),
                    o.pid.into(),
                    o.thread.map(|t| t.0).into(),
                    object_kind(o.kind).into(),
                    o.object_id.into(),
                    (&o.class).into(),
                    o.interface.as_ref().into(),
                    o.operation.as_ref().into(),
                ]);
            }
        }
        "remote_call" => {
            for r in &session.remote_calls {
                rows.push(&[
                    r.ts_ns.into(),
                    r.pid.into(),
                    r.remote_pid.into(),
                    r.thread.map(|t| t.0).into(),
                    remote_kind(r.kind).into(),
                    r.object_id.into(),
                    (&r.class).into(),
                    (&r.interface).into(),
                    (&r.operation).into(),
                ]);
            }
        }
        "sched" => {
            for x in &session.sched {
                let state = x.end_state.as_ref().map(|e| e.as_str().to_owned());
                rows.push(&[
                    x.cpu.into(),
                    x.ts_ns.into(),
                    x.dur_ns.into(),
                    x.thread.0.into(),
                    x.priority.into(),
                    state.as_ref().into(),
                ]);
            }
        }
        "async_slice" => {
            for a in &session.async_slices {
                rows.push(&[
                    (&a.name).into(),
                    a.category.as_ref().into(),
                    a.cookie.into(),
                    a.pid.into(),
                    a.thread.map(|t| t.0).into(),
                    a.ts_ns.into(),
                    a.dur_ns.into(),
                    a.open.into(),
                ]);
            }
        }
        "import_note" => {
            for r in &session.repairs {
                rows.push(&["repair".into(), (&r.code).into(), r.count.into(), (&r.detail).into()]);
            }
            for (kind, n) in &session.skipped {
                rows.push(&["skipped".into(), kind.into(), (*n).into(), Value::Null]);
            }
        }
        _ => return None,
    }
    Some(rows.finish(&s.id, with_session))
}

fn context_rows(session: &Session, rows: &mut Rows) {
    for (i, c) in session.context.iter().enumerate() {
        let track = Value::Int(i as i32);
        for (j, &ts) in c.times.iter().enumerate() {
            let end = c.times.get(j + 1).copied();
            let (int, real, text): (Option<i64>, Option<f64>, Option<&str>) = match &c.samples {
                ContextSamples::Int(v) => (Some(v[j] as i64), None, None),
                ContextSamples::Long(v) => (Some(v[j]), None, None),
                ContextSamples::Float(v) => (None, Some(v[j] as f64), None),
                ContextSamples::Double(v) => (None, Some(v[j]), None),
                ContextSamples::String(v) => (None, None, Some(v[j].as_str())),
            };
            rows.push(&[
                track.clone(),
                ts.into(),
                end.into(),
                int.into(),
                real.into(),
                text.into(),
            ]);
        }
    }
}

fn counter_kind(k: CounterKind) -> &'static str {
    match k {
        CounterKind::Level => "level",
        CounterKind::Sampled => "sampled",
        CounterKind::Cumulative => "cumulative",
    }
}

fn object_kind(k: ObjectEventKind) -> &'static str {
    match k {
        ObjectEventKind::Created => "created",
        ObjectEventKind::Destroyed => "destroyed",
        ObjectEventKind::OperationEntered => "operation_entered",
        ObjectEventKind::OperationLeft => "operation_left",
    }
}

fn remote_kind(k: RemoteCallKind) -> &'static str {
    match k {
        RemoteCallKind::ProxySync => "proxy_sync",
        RemoteCallKind::ProxyAsync => "proxy_async",
        RemoteCallKind::Stub => "stub",
    }
}

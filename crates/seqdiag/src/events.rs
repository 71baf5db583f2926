//! The object and cross-process events of a session as one time-ordered stream.

use tracekit_model::{ObjectEvent, RemoteCall, Session, ThreadId};

/// One object-level event.
#[derive(Debug, Clone, Copy)]
pub enum Ev<'a> {
    /// Created, destroyed, operation entered or left.
    Object(&'a ObjectEvent),
    /// Proxy (sync/async) or stub entered.
    Remote(&'a RemoteCall),
}

impl Ev<'_> {
    /// Process.
    pub fn pid(&self) -> u32 {
        match self {
            Ev::Object(o) => o.pid,
            Ev::Remote(r) => r.pid,
        }
    }

    /// Thread, when known.
    pub fn thread(&self) -> Option<ThreadId> {
        match self {
            Ev::Object(o) => o.thread,
            Ev::Remote(r) => r.thread,
        }
    }
}

/// Events in time order; at equal times object events come first, each kind
/// keeping its stored order.
pub fn ordered(s: &Session) -> Vec<Ev<'_>> {
    let mut v: Vec<(u64, u8, usize, Ev<'_>)> = Vec::with_capacity(s.objects.len() + s.remote_calls.len());
    v.extend(
        s.objects
            .iter()
            .enumerate()
            .map(|(i, o)| (o.ts_ns, 0, i, Ev::Object(o))),
    );
    v.extend(
        s.remote_calls
            .iter()
            .enumerate()
            .map(|(i, r)| (r.ts_ns, 1, i, Ev::Remote(r))),
    );
    v.sort_by_key(|e| (e.0, e.1, e.2));
    v.into_iter().map(|e| e.3).collect()
}

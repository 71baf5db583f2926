//! The replay listing: one time-ordered stream per thread of function calls,
//! object events, proxy/stub calls and markers, each with its nesting depth
//! and (for entries) its duration — what `tracekit replay` prints.

use serde::Serialize;
use tracekit_model::{CallEvent, CallKind, ObjectEventKind, RemoteCallKind, Session, ThreadId};

mod streamed;
pub use streamed::{LongCalls, StreamedListing, WINDOW};

/// One line of the listing (the `tracekit replay --json` event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedEvent {
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Timeline time in ns.
    pub ts_ns: u64,
    /// `enter`, `exit`, `create`, `destroy`, `proxy_sync`, `proxy_async`, `stub` or `marker`.
    pub kind: &'static str,
    /// Demangled function, `Class.operation`, class, or marker name.
    pub name: String,
    /// Nesting depth (0 = outermost).
    pub depth: usize,
    /// For entries: time until the matching exit.
    #[serde(skip)]
    pub duration_ns: Option<u64>,
    /// An entry the thread inherited rather than made: a frame that was
    /// open in the parent process when it forked this one (the child's calls
    /// nest under it). Absent from JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub inherited: bool,
}

/// Filters of the listing.
#[derive(Debug, Clone, Default)]
pub struct ListingFilter {
    /// Only these thread ids (all when empty).
    pub tids: Vec<u32>,
    /// Only events with depth below this.
    pub max_depth: Option<usize>,
    /// Only these functions (glob on the name) and what they call.
    pub functions: Vec<String>,
    /// Only events in this time range `(start, end)`, ns on the timeline,
    /// ends included (all when `None`). Depths still count the frames open
    /// at the start.
    pub time_ns: Option<(u64, u64)>,
}

/// A thread's events that are not calls (objects, proxies, stubs,
/// markers), in time order: `(ts, kind, name)`. Few next to its calls.
fn other_events(s: &Session, id: ThreadId) -> Vec<(u64, &'static str, String)> {
    let mut v: Vec<(u64, &'static str, String)> = Vec::new();
    for o in s.objects.iter().filter(|o| o.thread == Some(id)) {
        let op = || format!("{}.{}", o.class, o.operation.clone().unwrap_or_default());
        let (kind, name) = match o.kind {
            ObjectEventKind::Created => ("create", o.class.clone()),
            ObjectEventKind::Destroyed => ("destroy", o.class.clone()),
            ObjectEventKind::OperationEntered => ("enter", op()),
            ObjectEventKind::OperationLeft => ("exit", op()),
        };
        v.push((o.ts_ns, kind, name));
    }
    for r in s.remote_calls.iter().filter(|r| r.thread == Some(id)) {
        let kind = match r.kind {
            RemoteCallKind::ProxySync => "proxy_sync",
            RemoteCallKind::ProxyAsync => "proxy_async",
            RemoteCallKind::Stub => "stub",
        };
        v.push((r.ts_ns, kind, format!("{}.{}", r.class, r.operation)));
    }
    for m in s.markers.iter().filter(|m| m.thread == id) {
        v.push((m.ts_ns, "marker", m.name.clone()));
    }
    v.sort_by_key(|e| e.0);
    v
}

/// For each call event of a thread, the duration until its matching exit
/// when it is an entry (`u64::MAX` otherwise), from one backward pass.
fn call_durations(calls: &tracekit_model::CallColumns) -> Vec<u64> {
    let mut out = vec![u64::MAX; calls.len()];
    let mut exits: Vec<u64> = Vec::new();
    for i in (0..calls.len()).rev() {
        let e = calls.get(i);
        if e.kind == CallKind::Enter {
            if let Some(t) = exits.pop() {
                out[i] = t.saturating_sub(e.ts_ns);
            }
        } else {
            exits.push(e.ts_ns);
        }
    }
    out
}

fn opens(kind: &str) -> bool {
    matches!(kind, "enter" | "proxy_sync" | "proxy_async" | "stub")
}

/// Builds the listing of a session, thread by thread.
pub fn listing(s: &Session, f: &ListingFilter) -> Vec<ListedEvent> {
    let mut out = Vec::new();
    for_each_listed(s, f, |e| out.push(e));
    out
}

/// Hands each line of the listing to `out` in order, without holding the
/// listing: memory is the open frames plus one duration per call event of
/// the thread being listed. Same lines as [`listing`]. (A recording too
/// large for that is listed by [`StreamedListing`] instead.)
pub fn for_each_listed(s: &Session, f: &ListingFilter, mut out: impl FnMut(ListedEvent)) {
    for (id, t, calls) in s.thread_calls() {
        if !f.wants(t.tid) {
            continue;
        }
        let durations = call_durations(calls);
        let mut l = ThreadListing::new(s, f, id);
        for (i, &d) in durations.iter().enumerate() {
            l.call(&calls.get(i), (d != u64::MAX).then_some(d), &mut out);
        }
        l.finish(&mut out);
    }
}

impl ListingFilter {
    /// Whether the thread `tid` is listed.
    pub fn wants(&self, tid: u32) -> bool {
        self.tids.is_empty() || self.tids.contains(&tid)
    }
}

/// The listing of one thread, built from its call events handed over one
/// at a time in time order (each entry with its duration when known); its
/// other events (objects, proxies, markers: few) are merged in by time.
pub(crate) struct ThreadListing<'s> {
    s: &'s Session,
    f: &'s ListingFilter,
    pid: u32,
    tid: u32,
    others: Vec<(u64, &'static str, String)>,
    oi: usize,
    depth: usize,
    /// Names of the open lines.
    open: Vec<String>,
    inside_selected: Option<usize>,
    inherited_left: u32,
}

impl<'s> ThreadListing<'s> {
    pub(crate) fn new(s: &'s Session, f: &'s ListingFilter, id: ThreadId) -> ThreadListing<'s> {
        let t = s.thread(id);
        ThreadListing {
            s,
            f,
            pid: t.pid.unwrap_or(0),
            tid: t.tid,
            others: other_events(s, id),
            oi: 0,
            depth: 0,
            open: Vec::new(),
            inside_selected: None,
            inherited_left: s.inherited_frames_of(id),
        }
    }

    /// The next call event (other events at or before its time go first).
    pub(crate) fn call(&mut self, e: &CallEvent, duration: Option<u64>, out: &mut impl FnMut(ListedEvent)) {
        while self.others.get(self.oi).is_some_and(|o| o.0 <= e.ts_ns) {
            self.other(out);
        }
        let kind = if e.kind == CallKind::Enter { "enter" } else { "exit" };
        let name = self.s.methods.get(e.method).qualified_name();
        self.line(e.ts_ns, kind, name, true, duration, out);
    }

    /// The thread's calls are over: its remaining other events.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(ListedEvent)) {
        while self.oi < self.others.len() {
            self.other(out);
        }
    }

    fn other(&mut self, out: &mut impl FnMut(ListedEvent)) {
        let (ts, kind, name) = self.others[self.oi].clone();
        // A non-call opening line lasts until the next exit of its name.
        let d = if opens(kind) {
            self.others[self.oi + 1..]
                .iter()
                .find(|(_, k, n)| *k == "exit" && *n == name)
                .map(|(t2, _, _)| t2.saturating_sub(ts))
        } else {
            None
        };
        self.oi += 1;
        self.line(ts, kind, name, false, d, out);
    }

    fn line(
        &mut self,
        ts: u64,
        kind: &'static str,
        name: String,
        is_call: bool,
        duration: Option<u64>,
        out: &mut impl FnMut(ListedEvent),
    ) {
        let inherited = is_call && kind == "enter" && self.inherited_left > 0;
        if inherited {
            self.inherited_left -= 1;
        }
        // An exit closes the innermost open entry of the same name; entries
        // above it that never saw their exit (an async proxy, say) end with it.
        let matching = if kind == "exit" {
            self.open.iter().rposition(|n| *n == name)
        } else {
            None
        };
        let d = match (kind, matching) {
            ("exit", Some(pos)) => pos,
            ("exit", None) => self.depth.saturating_sub(1),
            _ => self.depth,
        };
        if opens(kind) && self.inside_selected.is_none() && self.f.functions.iter().any(|g| glob_matches(g, &name)) {
            self.inside_selected = Some(d);
        }
        let selected = self.f.functions.is_empty() || self.inside_selected.is_some();
        let shown = selected
            && self.f.max_depth.is_none_or(|m| d < m)
            && self.f.time_ns.is_none_or(|(a, b)| (a..=b).contains(&ts));
        if opens(kind) {
            self.open.push(name.clone());
            self.depth += 1;
        } else if let Some(pos) = matching {
            self.open.truncate(pos);
            self.depth = pos;
        }
        let closes_selection = kind == "exit" && matching.is_some() && self.inside_selected.is_some_and(|sd| sd >= d);
        if shown {
            out(ListedEvent {
                pid: self.pid,
                tid: self.tid,
                ts_ns: ts,
                kind,
                name,
                depth: d,
                duration_ns: if opens(kind) { duration } else { None },
                inherited,
            });
        }
        if closes_selection {
            self.inside_selected = None;
        }
    }
}

/// Whether a function name matches a `-F` glob (`*`, `?`, `[…]`); a
/// pattern that is not a valid glob (C++'s `operator[]`, say) must match
/// exactly.
fn glob_matches(pattern: &str, name: &str) -> bool {
    match glob::Pattern::new(pattern) {
        Ok(p) => p.matches(name),
        Err(_) => pattern == name,
    }
}

/// Formats a duration the way `uftrace replay` does (`1.234 us`).
pub fn format_duration(ns: u64) -> String {
    match ns {
        0..=999 => format!("{ns:7} ns"),
        1_000..=999_999 => format!("{:7.3} us", ns as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:7.3} ms", ns as f64 / 1e6),
        _ => format!("{:7.3}  s", ns as f64 / 1e9),
    }
}

/// Renders the indented call listing.
pub fn render_text(events: &[ListedEvent]) -> String {
    let mut s = String::new();
    let mut r = TextRenderer::new(|line: &str| {
        s.push_str(line);
        s.push('\n');
    });
    for e in events {
        r.push(e.clone());
    }
    r.finish();
    s
}

/// Renders listing lines as they come (an entry is held until the next
/// line shows whether it is a leaf, printed as `f();`).
pub struct TextRenderer<F: FnMut(&str)> {
    pending: Option<ListedEvent>,
    out: F,
}

impl<F: FnMut(&str)> TextRenderer<F> {
    /// A renderer handing each text line (with no newline) to `out`; the
    /// column header goes out at once.
    pub fn new(mut out: F) -> TextRenderer<F> {
        out("#   DURATION    PID/TID      FUNCTION");
        TextRenderer { pending: None, out }
    }

    /// The next line of the listing.
    pub fn push(&mut self, e: ListedEvent) {
        if let Some(p) = self.pending.take() {
            if e.kind == "exit" && e.depth == p.depth && e.tid == p.tid && e.name == p.name {
                let line = line(&p, true);
                (self.out)(&line);
                return;
            }
            let line = line(&p, false);
            (self.out)(&line);
        }
        if e.kind == "enter" {
            self.pending = Some(e);
        } else {
            let line = line(&e, false);
            (self.out)(&line);
        }
    }

    /// Flushes the last held line.
    pub fn finish(&mut self) {
        if let Some(p) = self.pending.take() {
            let line = line(&p, false);
            (self.out)(&line);
        }
    }
}

fn line(e: &ListedEvent, leaf: bool) -> String {
    let indent = "  ".repeat(e.depth);
    let dur = e.duration_ns.map(format_duration).unwrap_or_else(|| " ".repeat(10));
    let who = format!("[{:>6}/{:<6}]", e.pid, e.tid);
    match e.kind {
        "enter" if leaf => {
            let note = if e.inherited { " /* inherited at fork */" } else { "" };
            format!("{dur} {who} | {indent}{}();{note}", e.name)
        }
        "enter" if e.inherited => format!("{dur} {who} | {indent}{}() {{ /* inherited at fork */", e.name),
        "enter" => format!("{dur} {who} | {indent}{}() {{", e.name),
        "exit" => format!("{:10} {who} | {indent}}} /* {} */", "", e.name),
        "proxy_sync" | "proxy_async" | "stub" => format!("{dur} {who} | {indent}{}() {{ /* {} */", e.name, e.kind),
        k => format!("{dur} {who} | {indent}/* {k} {} */", e.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::*;

    fn session() -> Session {
        let mut s = Session::new("t", Clocks::WALL);
        let t = s.add_thread(Thread {
            tid: 5,
            pid: Some(4),
            name: "main".into(),
        });
        let main = s.methods.intern(Method::new("", "main", ""));
        let f = s.methods.intern(Method::new("", "f", ""));
        for e in [
            CallEvent::enter(main, 0, None),
            CallEvent::enter(f, 10, None),
            CallEvent::exit(f, 30, None),
            CallEvent::exit(main, 40, None),
        ] {
            s.calls_mut(t).push(e);
        }
        s.markers.push(Marker {
            ts_ns: 20,
            thread: t,
            name: "brb".into(),
        });
        s
    }

    #[test]
    fn depths_kinds_and_durations() {
        let l = listing(&session(), &ListingFilter::default());
        let got: Vec<_> = l.iter().map(|e| (e.kind, e.name.as_str(), e.depth)).collect();
        assert_eq!(
            got,
            vec![
                ("enter", "main", 0),
                ("enter", "f", 1),
                ("marker", "brb", 2),
                ("exit", "f", 1),
                ("exit", "main", 0)
            ]
        );
        assert_eq!(l[1].duration_ns, Some(20));
        let text = render_text(&l);
        assert!(text.contains("|   f() {"), "{text}");
        assert!(text.contains("20 ns"), "{text}");
    }

    #[test]
    fn filters() {
        let s = session();
        let d = listing(
            &s,
            &ListingFilter {
                max_depth: Some(1),
                ..Default::default()
            },
        );
        assert_eq!(d.len(), 2);
        let f = listing(
            &s,
            &ListingFilter {
                functions: vec!["f".into()],
                ..Default::default()
            },
        );
        assert_eq!(
            f.iter().map(|e| e.kind).collect::<Vec<_>>(),
            vec!["enter", "marker", "exit"]
        );
        assert!(listing(
            &s,
            &ListingFilter {
                tids: vec![9],
                ..Default::default()
            }
        )
        .is_empty());
    }

    #[test]
    fn depth_filter_applies_to_each_thread_on_its_own() {
        let mut s = session();
        let t2 = s.add_thread(Thread {
            tid: 6,
            pid: Some(4),
            name: "worker".into(),
        });
        let g = s.methods.intern(Method::new("", "g", ""));
        let h = s.methods.intern(Method::new("", "h", ""));
        for e in [
            CallEvent::enter(g, 5, None),
            CallEvent::enter(h, 6, None),
            CallEvent::exit(h, 7, None),
            CallEvent::exit(g, 8, None),
        ] {
            s.calls_mut(t2).push(e);
        }
        let d = listing(
            &s,
            &ListingFilter {
                max_depth: Some(1),
                ..Default::default()
            },
        );
        let got: Vec<_> = d.iter().map(|e| (e.tid, e.kind, e.name.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (5, "enter", "main"),
                (5, "exit", "main"),
                (6, "enter", "g"),
                (6, "exit", "g")
            ]
        );
    }
}

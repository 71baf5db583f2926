//! The replay listing: one time-ordered stream per thread of function calls,
//! object events, proxy/stub calls and markers, each with its nesting depth
//! and (for entries) its duration — what `tracekit replay` prints.

use serde::Serialize;
use tracekit_model::{CallKind, ObjectEventKind, RemoteCallKind, Session, ThreadId};

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
}

fn thread_events(s: &Session, id: ThreadId) -> Vec<(u64, u8, &'static str, String)> {
    let mut v: Vec<(u64, u8, &'static str, String)> = Vec::new();
    for e in s.calls(id).iter() {
        let kind = if e.kind == CallKind::Enter { "enter" } else { "exit" };
        v.push((e.ts_ns, 1, kind, s.methods.get(e.method).qualified_name()));
    }
    for o in s.objects.iter().filter(|o| o.thread == Some(id)) {
        let op = || format!("{}.{}", o.class, o.operation.clone().unwrap_or_default());
        let (kind, name) = match o.kind {
            ObjectEventKind::Created => ("create", o.class.clone()),
            ObjectEventKind::Destroyed => ("destroy", o.class.clone()),
            ObjectEventKind::OperationEntered => ("enter", op()),
            ObjectEventKind::OperationLeft => ("exit", op()),
        };
        v.push((o.ts_ns, 0, kind, name));
    }
    for r in s.remote_calls.iter().filter(|r| r.thread == Some(id)) {
        let kind = match r.kind {
            RemoteCallKind::ProxySync => "proxy_sync",
            RemoteCallKind::ProxyAsync => "proxy_async",
            RemoteCallKind::Stub => "stub",
        };
        v.push((r.ts_ns, 0, kind, format!("{}.{}", r.class, r.operation)));
    }
    for m in s.markers.iter().filter(|m| m.thread == id) {
        v.push((m.ts_ns, 0, "marker", m.name.clone()));
    }
    // Stable: calls keep their recorded order; other events at the same time go first.
    v.sort_by_key(|e| (e.0, e.1));
    v
}

fn opens(kind: &str) -> bool {
    matches!(kind, "enter" | "proxy_sync" | "proxy_async" | "stub")
}

/// Builds the listing of a session, thread by thread.
pub fn listing(s: &Session, f: &ListingFilter) -> Vec<ListedEvent> {
    let mut out: Vec<ListedEvent> = Vec::new();
    for (id, t, _) in s.thread_calls() {
        if !f.tids.is_empty() && !f.tids.contains(&t.tid) {
            continue;
        }
        let pid = t.pid.unwrap_or(0);
        let mut depth = 0usize;
        let mut open: Vec<usize> = Vec::new();
        let mut inside_selected: Option<usize> = None;
        let mut rows: Vec<ListedEvent> = Vec::new();
        let mut keep: Vec<bool> = Vec::new();
        let mut inherited_left = s.inherited_frames_of(id);
        for (ts, is_call, kind, name) in thread_events(s, id) {
            let inherited = is_call == 1 && kind == "enter" && inherited_left > 0;
            if inherited {
                inherited_left -= 1;
            }
            // An exit closes the innermost open entry of the same name; entries
            // above it that never saw their exit (an async proxy, say) end with it.
            let matching = if kind == "exit" {
                open.iter().rposition(|&i| rows[i].name == name)
            } else {
                None
            };
            let d = match (kind, matching) {
                ("exit", Some(pos)) => pos,
                ("exit", None) => depth.saturating_sub(1),
                _ => depth,
            };
            if opens(kind) && inside_selected.is_none() && f.functions.iter().any(|g| glob_matches(g, &name)) {
                inside_selected = Some(d);
            }
            let selected = f.functions.is_empty() || inside_selected.is_some();
            let shown = selected && f.max_depth.is_none_or(|m| d < m);
            rows.push(ListedEvent {
                pid,
                tid: t.tid,
                ts_ns: ts,
                kind,
                name,
                depth: d,
                duration_ns: None,
                inherited,
            });
            keep.push(shown);
            if opens(kind) {
                open.push(rows.len() - 1);
                depth += 1;
            } else if let Some(pos) = matching {
                let i = open[pos];
                rows[i].duration_ns = Some(ts.saturating_sub(rows[i].ts_ns));
                open.truncate(pos);
                depth = pos;
                if inside_selected.is_some_and(|sd| sd >= d) {
                    inside_selected = None;
                }
            }
        }
        out.extend(rows.into_iter().zip(keep).filter_map(|(e, shown)| shown.then_some(e)));
    }
    out
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
    let mut s = String::from("#   DURATION    PID/TID      FUNCTION\n");
    let mut i = 0;
    while i < events.len() {
        let e = &events[i];
        let indent = "  ".repeat(e.depth);
        let leaf = e.kind == "enter"
            && events
                .get(i + 1)
                .is_some_and(|n| n.kind == "exit" && n.depth == e.depth && n.tid == e.tid && n.name == e.name);
        let dur = e.duration_ns.map(format_duration).unwrap_or_else(|| " ".repeat(10));
        let who = format!("[{:>6}/{:<6}]", e.pid, e.tid);
        let line = match e.kind {
            "enter" if leaf => {
                i += 1;
                let note = if e.inherited { " /* inherited at fork */" } else { "" };
                format!("{dur} {who} | {indent}{}();{note}", e.name)
            }
            "enter" if e.inherited => format!("{dur} {who} | {indent}{}() {{ /* inherited at fork */", e.name),
            "enter" => format!("{dur} {who} | {indent}{}() {{", e.name),
            "exit" => format!("{:10} {who} | {indent}}} /* {} */", "", e.name),
            "proxy_sync" | "proxy_async" | "stub" => format!("{dur} {who} | {indent}{}() {{ /* {} */", e.name, e.kind),
            k => format!("{dur} {who} | {indent}/* {k} {} */", e.name),
        };
        s.push_str(&line);
        s.push('\n');
        i += 1;
    }
    s
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

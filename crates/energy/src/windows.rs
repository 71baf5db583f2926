//! The windows energy is asked for: explicit ranges, each instance of a
//! named slice, the intervals where a context condition holds, and the
//! inside and outside of a problem.

use crate::Error;
use serde::Serialize;
use tracekit_analysis::{problems, Condition, IntervalSet, ProblemDef};
use tracekit_model::{CallKind, Session};

/// A stretch of the session's timeline, `[from_ns, to_ns]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    /// Start, ns on the session timeline.
    pub from_ns: i64,
    /// End, ns.
    pub to_ns: i64,
    /// What the window is (a slice's name and thread, a condition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl Window {
    /// An unlabelled window.
    pub fn new(from_ns: i64, to_ns: i64) -> Window {
        Window {
            from_ns,
            to_ns,
            label: None,
        }
    }

    /// The same window with a label.
    pub fn labelled(mut self, label: impl Into<String>) -> Window {
        self.label = Some(label.into());
        self
    }

    /// Length in ns (0 when reversed).
    pub fn len_ns(&self) -> i64 {
        (self.to_ns - self.from_ns).max(0)
    }
}

/// `[from_us, to_us]` given in microseconds, as the CLI takes it.
pub fn range_us(from_us: f64, to_us: f64) -> Result<Window, Error> {
    let ns = |us: f64| {
        let v = (us * 1e3).round();
        (v.is_finite() && v.abs() < 9e18).then_some(v as i64)
    };
    match (ns(from_us), ns(to_us)) {
        (Some(a), Some(b)) if a <= b => Ok(Window::new(a, b)),
        _ => Err(Error::Window(format!("{from_us} µs to {to_us} µs is not a range"))),
    }
}

/// Every instance of a named slice: calls of the methods `name` matches
/// (see `MethodTable::find`; a recursive call counts once, as its
/// outermost instance) on each thread, and async slices of that name.
/// An async slice the trace never closed ends at `end_ns`.
pub fn slice_instances(session: &Session, name: &str, end_ns: i64) -> Result<Vec<Window>, Error> {
    let ids = session.methods.find(name);
    let mut wanted = vec![false; session.methods.len()];
    for id in &ids {
        wanted[id.0 as usize] = true;
    }
    let mut out = Vec::new();
    if !ids.is_empty() {
        for (_, thread, calls) in session.thread_calls() {
            let mut depth = 0u32;
            let mut start = 0u64;
            for e in calls.iter() {
                if !wanted.get(e.method.0 as usize).copied().unwrap_or(false) {
                    continue;
                }
                if e.kind == CallKind::Enter {
                    if depth == 0 {
                        start = e.ts_ns;
                    }
                    depth += 1;
                } else if depth > 0 {
                    depth -= 1;
                    if depth == 0 {
                        let m = session.methods.get(e.method).qualified_name();
                        out.push(
                            Window::new(start as i64, e.ts_ns as i64).labelled(format!("{m} on {}", thread.label())),
                        );
                    }
                }
            }
        }
    }
    for a in session.async_slices.iter().filter(|a| a.name == name) {
        let end = if a.open {
            end_ns.max(a.ts_ns as i64)
        } else {
            (a.ts_ns + a.dur_ns) as i64
        };
        out.push(Window::new(a.ts_ns as i64, end).labelled(format!("{} (async {})", a.name, a.cookie)));
    }
    if out.is_empty() && ids.is_empty() {
        return Err(Error::UnknownSlice(name.to_owned()));
    }
    out.sort_by_key(|w| (w.from_ns, w.to_ns));
    Ok(out)
}

fn from_set(set: &IntervalSet, label: &str) -> Vec<Window> {
    set.spans()
        .iter()
        .map(|s| Window::new(s.start, s.end).labelled(label))
        .collect()
}

/// The intervals where a context condition holds (`Condition::parse`
/// syntax, e.g. `cpu0 freq > 1000000`), up to the end of the session.
pub fn condition_intervals(session: &Session, condition: &str) -> Result<Vec<Window>, Error> {
    let c = Condition::parse(condition)?;
    let set = c.intervals(session, problems::horizon(session))?;
    Ok(from_set(&set, condition))
}

/// The parts of `[from_ns, to_ns]` that no window covers.
pub fn complement(windows: &[Window], from_ns: i64, to_ns: i64, label: &str) -> Vec<Window> {
    let mut spans: Vec<(i64, i64)> = windows.iter().map(|w| (w.from_ns, w.to_ns)).collect();
    spans.sort_unstable();
    let mut out = Vec::new();
    let mut at = from_ns;
    for (a, b) in spans {
        if a > at {
            out.push(Window::new(at, a.min(to_ns)).labelled(label));
        }
        at = at.max(b);
        if at >= to_ns {
            break;
        }
    }
    if at < to_ns {
        out.push(Window::new(at, to_ns).labelled(label));
    }
    out.retain(|w| w.to_ns > w.from_ns);
    out
}

/// Inside and outside a problem within `[from_ns, to_ns]`: inside are the
/// intervals where its condition holds, or, for a method problem without
/// one, the method's calls; outside is the rest. A big-red-button problem
/// marks instants, not intervals, and is refused.
pub fn problem_windows(
    session: &Session,
    def: &ProblemDef,
    from_ns: i64,
    to_ns: i64,
) -> Result<(Vec<Window>, Vec<Window>), Error> {
    let inside = match def {
        ProblemDef::Brb { method } => {
            return Err(Error::Window(format!(
                "the big-red-button problem `{method}` marks instants, not intervals"
            )))
        }
        ProblemDef::Method { method, when: Some(_) } => {
            let m = problems::find(std::slice::from_ref(session), def)?;
            match m.intervals.first() {
                Some(Some(set)) => from_set(set, &format!("while the problem of {method} can occur")),
                _ => Vec::new(),
            }
        }
        ProblemDef::Method { method, when: None } => slice_instances(session, method, to_ns)?,
    };
    let outside = complement(&inside, from_ns, to_ns, "outside the problem");
    Ok((inside, outside))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{AsyncSlice, CallEvent, Clocks, Method, Thread};

    fn session() -> Session {
        let mut s = Session::new("s", Clocks::WALL);
        let t = s.add_thread(Thread::new(7, "main"));
        let f = s.methods.intern(Method::new("a/B", "draw", "()V"));
        let g = s.methods.intern(Method::new("a/B", "other", "()V"));
        for (kind, m, ts) in [
            (CallKind::Enter, f, 10),
            (CallKind::Enter, f, 12),
            (CallKind::Exit, f, 14),
            (CallKind::Enter, g, 15),
            (CallKind::Exit, g, 16),
            (CallKind::Exit, f, 20),
            (CallKind::Enter, f, 30),
            (CallKind::Exit, f, 35),
        ] {
            s.calls_mut(t).push(CallEvent {
                kind,
                method: m,
                ts_ns: ts,
                cpu_ns: None,
            });
        }
        s.async_slices.push(AsyncSlice {
            name: "draw".into(),
            category: None,
            cookie: 3,
            pid: None,
            thread: None,
            ts_ns: 40,
            dur_ns: 0,
            open: true,
        });
        s
    }

    #[test]
    fn slices_count_outermost_calls_and_async_spans() {
        let w = slice_instances(&session(), "draw", 50).unwrap();
        let spans: Vec<_> = w.iter().map(|w| (w.from_ns, w.to_ns)).collect();
        assert_eq!(spans, vec![(10, 20), (30, 35), (40, 50)]);
        assert_eq!(w[0].label.as_deref(), Some("a.B.draw on main"));
        assert!(matches!(
            slice_instances(&session(), "nothing", 50),
            Err(Error::UnknownSlice(_))
        ));
    }

    #[test]
    fn complements_fill_the_gaps() {
        let w = vec![Window::new(10, 20), Window::new(15, 30), Window::new(40, 45)];
        let c: Vec<_> = complement(&w, 0, 50, "out")
            .iter()
            .map(|w| (w.from_ns, w.to_ns))
            .collect();
        assert_eq!(c, vec![(0, 10), (30, 40), (45, 50)]);
    }

    #[test]
    fn problems_without_a_condition_use_the_calls() {
        let def = ProblemDef::Method {
            method: "draw".into(),
            when: None,
        };
        let (inside, outside) = problem_windows(&session(), &def, 0, 60).unwrap();
        assert_eq!(inside.len(), 3);
        assert_eq!(outside.iter().map(|w| w.len_ns()).sum::<i64>(), 60 - 10 - 5 - 20);
        assert!(problem_windows(&session(), &ProblemDef::Brb { method: "brb".into() }, 0, 1).is_err());
        assert!(range_us(5.0, 1.0).is_err());
        assert_eq!(range_us(1.5, 2.0).unwrap(), Window::new(1_500, 2_000));
    }
}

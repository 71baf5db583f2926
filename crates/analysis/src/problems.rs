//! Problem definitions (seed 000 §5.8) and where they occur.
//!
//! A *big-red-button* problem occurs at every call of the marker method
//! (default `brb`) and at every marker event of that name. A *developer*
//! problem is a method, optionally with a context condition: the method's
//! calls are split into those that start inside an interval where the
//! condition holds and the rest, and the inside calls are the occurrences.
//! Several sessions can be analysed together; occurrences are pooled.

use crate::condition::Condition;
use crate::intervals::IntervalSet;
use crate::Error;
use tracekit_model::{CallKind, MethodId, Session, ThreadId};

/// What the user says went wrong.
#[derive(Debug, Clone)]
pub enum ProblemDef {
    /// Presses of the big red button: calls to (or markers named) `method`.
    Brb {
        /// The marker method's name (`brb` by default).
        method: String,
    },
    /// Calls of a method, optionally only while a condition holds.
    Method {
        /// Method pattern (see `MethodTable::find`).
        method: String,
        /// Condition on context items.
        when: Option<Condition>,
    },
}

/// One occurrence of a problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// Index of the session in the analysed list.
    pub session: usize,
    /// Time on that session's timeline (ns).
    pub ts_ns: u64,
    /// Thread where it occurred.
    pub thread: ThreadId,
}

/// Where a problem occurs.
#[derive(Debug, Clone)]
pub struct ProblemMatch {
    /// Occurrences, by session then time.
    pub occurrences: Vec<Occurrence>,
    /// Method calls that started inside the condition's intervals.
    pub calls_inside: u64,
    /// Method calls that started outside them.
    pub calls_outside: u64,
    /// Per session: the intervals where the condition holds (`None` without a condition).
    pub intervals: Vec<Option<IntervalSet>>,
    /// Per session: every matching call start (ns, thread), inside or not.
    pub calls: Vec<Vec<(u64, ThreadId, bool)>>,
}

/// The end of a session's timeline (ns): the last call, marker or context record.
pub fn horizon(session: &Session) -> i64 {
    let mut end = session.time_span().map_or(0, |(_, b)| b as i64);
    if let Some(d) = session.duration_ns {
        end = end.max(d as i64);
    }
    for t in session
        .context
        .iter()
        .map(|t| &t.times)
        .chain(session.counters.iter().map(|c| &c.times))
    {
        if let Some(&last) = t.last() {
            end = end.max(last);
        }
    }
    end + 1
}

fn call_starts(session: &Session, methods: &[MethodId], name: &str, markers: bool) -> Vec<(u64, ThreadId)> {
    let mut out = Vec::new();
    if !methods.is_empty() {
        let mut wanted = vec![false; session.methods.len()];
        for m in methods {
            wanted[m.0 as usize] = true;
        }
        for (id, _, calls) in session.thread_calls() {
            for e in calls.iter() {
                if e.kind == CallKind::Enter && wanted.get(e.method.0 as usize).copied().unwrap_or(false) {
                    out.push((e.ts_ns, id));
                }
            }
        }
    }
    if markers {
        out.extend(
            session
                .markers
                .iter()
                .filter(|m| m.name == name)
                .map(|m| (m.ts_ns, m.thread)),
        );
    }
    out.sort();
    out
}

/// Finds a problem's occurrences in one or more sessions.
pub fn find(sessions: &[Session], def: &ProblemDef) -> Result<ProblemMatch, Error> {
    let mut m = ProblemMatch {
        occurrences: Vec::new(),
        calls_inside: 0,
        calls_outside: 0,
        intervals: Vec::new(),
        calls: Vec::new(),
    };
    match def {
        ProblemDef::Brb { method } => {
            for (si, s) in sessions.iter().enumerate() {
                let ids = s.methods.find(method);
                let starts = call_starts(s, &ids, method, true);
                m.calls_inside += starts.len() as u64;
                m.occurrences.extend(starts.iter().map(|&(ts_ns, thread)| Occurrence {
                    session: si,
                    ts_ns,
                    thread,
                }));
                m.calls.push(starts.into_iter().map(|(t, th)| (t, th, true)).collect());
                m.intervals.push(None);
            }
        }
        ProblemDef::Method { method, when } => {
            let mut any = false;
            for (si, s) in sessions.iter().enumerate() {
                let ids = s.methods.find(method);
                any |= !ids.is_empty();
                let starts = call_starts(s, &ids, method, false);
                let iv = match when {
                    Some(c) => Some(c.intervals(s, horizon(s))?),
                    None => None,
                };
                let mut tagged = Vec::with_capacity(starts.len());
                for (ts_ns, thread) in starts {
                    let inside = iv.as_ref().is_none_or(|iv| iv.contains(ts_ns as i64));
                    if inside {
                        m.calls_inside += 1;
                        m.occurrences.push(Occurrence {
                            session: si,
                            ts_ns,
                            thread,
                        });
                    } else {
                        m.calls_outside += 1;
                    }
                    tagged.push((ts_ns, thread, inside));
                }
                m.calls.push(tagged);
                m.intervals.push(iv);
            }
            if !any {
                return Err(Error::UnknownMethod(method.clone()));
            }
        }
    }
    Ok(m)
}

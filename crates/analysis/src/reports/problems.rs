//! The `problems` report.

use super::us;
use crate::{Hint, ProblemMatch};
use serde::Serialize;
use tracekit_model::Session;

/// Where a problem occurs and which context goes with it
/// (`tracekit problems --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProblemReport {
    /// Occurrences, by session then time.
    pub occurrences: Vec<ProblemOccurrence>,
    /// Calls of the method that started while the condition held.
    pub calls_inside: u64,
    /// Calls that started while it did not.
    pub calls_outside: u64,
    /// Where the condition holds, `[start, end]` µs.
    pub intervals_us: ProblemIntervals,
    /// Context items ranked by how unlike the whole session they are at the
    /// occurrences.
    pub hints: Vec<Hint>,
    /// Energy inside and outside the problem's intervals, when the session
    /// has power data (one session, a method problem only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy: Option<ProblemEnergy>,
}

/// Energy inside and outside a problem's intervals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProblemEnergy {
    /// Energy while the problem's condition held (or its method ran), J.
    pub inside_j: f64,
    /// Time with power data inside, s.
    pub inside_s: f64,
    /// Mean power inside, W.
    pub inside_mean_w: Option<f64>,
    /// Energy the rest of the time, J.
    pub outside_j: f64,
    /// Time with power data outside, s.
    pub outside_s: f64,
    /// Mean power outside, W.
    pub outside_mean_w: Option<f64>,
}

/// One occurrence of a [`ProblemReport`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProblemOccurrence {
    /// Time on its session's timeline, µs.
    pub ts_us: f64,
    /// Thread name.
    pub thread: String,
    /// Session name (only when several sessions are pooled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// The condition's intervals: for one session its list (`null` without a
/// condition), for several sessions one such entry per session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ProblemIntervals {
    /// One session.
    One(Option<Vec<[f64; 2]>>),
    /// Several sessions, in the order given.
    Many(Vec<Option<Vec<[f64; 2]>>>),
}

impl ProblemReport {
    /// The report of match `m` over `sessions` with hints `h`.
    pub fn new(sessions: &[Session], m: &ProblemMatch, h: &[Hint]) -> ProblemReport {
        let pooled = sessions.len() > 1;
        let occurrences = m
            .occurrences
            .iter()
            .map(|o| {
                let s = &sessions[o.session];
                ProblemOccurrence {
                    ts_us: us(o.ts_ns),
                    thread: s.thread(o.thread).label(),
                    session: pooled.then(|| s.name.clone()),
                }
            })
            .collect();
        let mut per_session: Vec<Option<Vec<[f64; 2]>>> = m
            .intervals
            .iter()
            .map(|iv| {
                iv.as_ref().map(|iv| {
                    iv.spans()
                        .iter()
                        .map(|x| [x.start as f64 / 1000.0, x.end as f64 / 1000.0])
                        .collect()
                })
            })
            .collect();
        let intervals_us = if sessions.len() == 1 {
            ProblemIntervals::One(per_session.pop().flatten())
        } else {
            ProblemIntervals::Many(per_session)
        };
        ProblemReport {
            occurrences,
            calls_inside: m.calls_inside,
            calls_outside: m.calls_outside,
            intervals_us,
            hints: h.to_vec(),
            energy: None,
        }
    }
}

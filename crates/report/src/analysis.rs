//! Problem views from `tracekit-analysis`: the analysis finds occurrences,
//! condition intervals and ranked hints; this module only reshapes them.

use crate::problems::{Hint, ProblemDef, ProblemSolver, ProblemView, ThreadInstant, TopValue};
use std::sync::Arc;
use tracekit_analysis::hints::{hints, HintStats};
use tracekit_analysis::problems::{find, ProblemDef as AnalysisDef};
use tracekit_analysis::Condition;
use tracekit_model::Session;

/// Evaluates `def` on `session` with the analysis and returns what the
/// problem view draws.
pub fn problem_view(session: &Session, def: &ProblemDef) -> Result<ProblemView, String> {
    let adef = match def {
        ProblemDef::Brb { method } => AnalysisDef::Brb { method: method.clone() },
        ProblemDef::Method { method, when } => AnalysisDef::Method {
            method: method.clone(),
            when: if when.trim().is_empty() {
                None
            } else {
                Some(Condition::parse(when).map_err(|e| e.to_string())?)
            },
        },
    };
    let sessions = std::slice::from_ref(session);
    let m = find(sessions, &adef).map_err(|e| e.to_string())?;
    let h = hints(sessions, &m.occurrences);
    let instant = |ts_ns: u64, thread: u32| ThreadInstant { ts_ns, thread };
    let occurrences = m.occurrences.iter().map(|o| instant(o.ts_ns, o.thread.0)).collect();
    let intervals = m
        .intervals
        .first()
        .and_then(|iv| iv.as_ref())
        .map(|iv| {
            iv.spans()
                .iter()
                .map(|x| (x.start.max(0) as u64, x.end.max(0) as u64))
                .filter(|(a, b)| a < b)
                .collect()
        })
        .unwrap_or_default();
    let has_condition = matches!(def, ProblemDef::Method { when, .. } if !when.trim().is_empty());
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    if has_condition {
        for &(ts, th, is_in) in m.calls.first().map(Vec::as_slice).unwrap_or(&[]) {
            if is_in { &mut inside } else { &mut outside }.push(instant(ts, th.0));
        }
    }
    let hints = h
        .into_iter()
        .map(|x| {
            let (top_values, p5, p95) = match x.stats {
                HintStats::Discrete { top_values } => (
                    Some(
                        top_values
                            .into_iter()
                            .map(|v| TopValue {
                                value: v.value.to_string(),
                                share: v.share,
                            })
                            .collect(),
                    ),
                    None,
                    None,
                ),
                HintStats::Continuous { p5, p95 } => (None, p5, p95),
            };
            Hint {
                label: x.label,
                kind: x.kind.to_owned(),
                score: Some(x.score),
                top_values,
                p5,
                p95,
                raw_score: Some(x.raw_score),
                basis: Some(x.basis.name().to_owned()),
                confounded_with_time: x.confounded_with_time,
                expected_from_time: Some(x.expected_from_time),
                unit: x.unit,
                note: x.note,
                defined: Some(x.defined),
            }
        })
        .collect();
    Ok(ProblemView {
        title: def.title(),
        def: def.clone(),
        occurrences,
        intervals,
        calls_inside: inside,
        calls_outside: outside,
        hints,
    })
}

/// Answers the web UI's problem form with the analysis.
pub struct AnalysisSolver {
    session: Arc<Session>,
}

impl AnalysisSolver {
    /// A solver over `session`.
    pub fn new(session: Arc<Session>) -> AnalysisSolver {
        AnalysisSolver { session }
    }
}

impl ProblemSolver for AnalysisSolver {
    fn solve(&self, def: &ProblemDef) -> Result<ProblemView, String> {
        problem_view(&self.session, def)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic;

    #[test]
    fn brb_and_condition_views_come_from_the_analysis() {
        let s = synthetic::session(6_000);
        let brb = problem_view(&s, &ProblemDef::Brb { method: "brb".into() }).unwrap();
        let expected: Vec<u64> = synthetic::brb_times(6_000 / 3 * 10_250);
        assert_eq!(brb.occurrences.len(), expected.len());
        assert!(brb.intervals.is_empty());
        let orientation = brb.hints.iter().find(|h| h.label == "Screen orientation").unwrap();
        assert_eq!(
            orientation.top_values.as_ref().unwrap()[0],
            TopValue {
                value: "1".into(),
                share: 1.0
            }
        );
        let battery = brb.hints.iter().find(|h| h.label == "Battery level").unwrap();
        assert!(battery.p5.unwrap() <= battery.p95.unwrap() && battery.top_values.is_none());
        assert!(
            brb.hints
                .windows(2)
                .all(|w| (!w[0].confounded_with_time && w[1].confounded_with_time) || w[0].score >= w[1].score),
            "ranked order kept"
        );
        let time = brb.hints.iter().find(|h| h.basis.as_deref() == Some("time")).unwrap();
        assert_eq!(time.unit.as_deref(), Some("s"));
        assert!(time.raw_score.is_some() && time.note.is_some());
        let def = ProblemDef::Method {
            method: "Renderer.draw".into(),
            when: "Screen orientation == 1".into(),
        };
        let v = problem_view(&s, &def).unwrap();
        assert_eq!(v.intervals.len(), 4);
        assert_eq!(v.occurrences, v.calls_inside);
        assert!(!v.calls_outside.is_empty());
        assert_eq!(v.title, "Renderer.draw when Screen orientation == 1");
        let err = problem_view(
            &s,
            &ProblemDef::Method {
                method: "nothing".into(),
                when: String::new(),
            },
        )
        .unwrap_err();
        assert!(err.contains("nothing"), "{err}");
    }
}

//! What a hint compares: an item's value (or rate, or the session time) at
//! each occurrence, and the item's course over each session as pieces of
//! time that held one value.

use crate::context::value_at;
use crate::problems::Occurrence;
use std::collections::HashMap;
use tracekit_model::{ContextSamples, ContextTrack, ContextType, ContextValue, CounterKind, Session};

/// Evenly spaced samples taken per session of an interpolated item (and of a
/// rate) for its baseline.
pub(super) const BASELINE_SAMPLES: usize = 4096;

/// A counter is recognised from its data when it never decreases in any
/// session and grows at least this many times in all.
pub(super) const MIN_COUNTER_STEPS: usize = 8;

/// How values compare: by order (numbers) or only by equality (strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scale {
    /// Numbers: Kolmogorov–Smirnov distance.
    Ordered,
    /// Strings, as category numbers: total variation distance.
    Categorical,
}

/// A stretch of one session's timeline during which an item had one value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Piece {
    /// Start (ns, session timeline).
    pub start: i64,
    /// End (ns, exclusive).
    pub end: i64,
    /// The piece's weight in the whole-session baseline: its duration for
    /// held values, 1 for each evenly spaced sample.
    pub raw_weight: f64,
    /// The value (a category number for strings).
    pub value: f64,
}

/// One item's values at the occurrences and its course over the sessions.
#[derive(Debug, Clone, Default)]
pub(super) struct Series {
    /// Occurrences where the item had a value: (session, time ns).
    pub at: Vec<(usize, i64)>,
    /// The value at each of them (category numbers for strings).
    pub values: Vec<f64>,
    /// Per session, the pieces in time order.
    pub pieces: Vec<Vec<Piece>>,
}

impl Series {
    /// Where the item has a value in session `s`: from its first piece's start
    /// to its last piece's end.
    pub fn domain(&self, s: usize) -> Option<(i64, i64)> {
        let p = self.pieces.get(s)?;
        Some((p.first()?.start, p.last()?.end))
    }
}

/// Category numbers of strings, in order of first sight.
#[derive(Default)]
pub(super) struct Categories(HashMap<String, f64>);

impl Categories {
    fn id(&mut self, s: &str) -> f64 {
        let next = self.0.len() as f64;
        *self.0.entry(s.to_owned()).or_insert(next)
    }
}

fn key_value(v: &ContextValue, cats: &mut Categories) -> Option<f64> {
    match v {
        ContextValue::Str(s) => Some(cats.id(s)),
        other => other.as_f64().filter(|x| x.is_finite()),
    }
}

/// The value series of an item: held values (int, long, string) over each
/// record's duration up to the session's end, or evenly spaced samples of
/// the interpolated line (float, double) between the first and last record.
pub(super) fn value_series(
    tracks: &[Option<&ContextTrack>],
    occurrences: &[Occurrence],
    ends: &[i64],
) -> (Series, Vec<ContextValue>) {
    let mut cats = Categories::default();
    let mut out = Series::default();
    let mut raw_values = Vec::new();
    for o in occurrences {
        let Some(v) = tracks
            .get(o.session)
            .copied()
            .flatten()
            .and_then(|t| value_at(t, o.ts_ns as i64))
        else {
            continue;
        };
        raw_values.push(v.clone());
        if let Some(x) = key_value(&v, &mut cats) {
            out.at.push((o.session, o.ts_ns as i64));
            out.values.push(x);
        }
    }
    for (t, &end) in tracks.iter().zip(ends) {
        let mut pieces = Vec::new();
        if let Some(t) = t {
            if t.kind().is_continuous() {
                sampled(&mut pieces, t.times.first().copied(), t.times.last().copied(), |at| {
                    value_at(t, at).and_then(|v| v.as_f64())
                });
            } else {
                for i in 0..t.len() {
                    let stop = if i + 1 < t.len() { t.times[i + 1] } else { end };
                    let value = match &t.samples {
                        ContextSamples::String(v) => Some(cats.id(&v[i])),
                        s => s.get_f64(i).filter(|x| x.is_finite()),
                    };
                    if let Some(value) = value {
                        pieces.push(Piece {
                            start: t.times[i],
                            end: stop.max(t.times[i]),
                            raw_weight: (stop - t.times[i]).max(0) as f64,
                            value,
                        });
                    }
                }
            }
        }
        out.pieces.push(pieces);
    }
    (out, raw_values)
}

/// Evenly spaced samples of `f` over `[a, b]`, one piece each; a single
/// instant (`a == b`) is one sample of no duration.
fn sampled(pieces: &mut Vec<Piece>, a: Option<i64>, b: Option<i64>, f: impl Fn(i64) -> Option<f64>) {
    let (Some(a), Some(b)) = (a, b) else { return };
    if b <= a {
        if let Some(value) = f(a).filter(|x| x.is_finite()) {
            pieces.push(Piece {
                start: a,
                end: a,
                raw_weight: 1.0,
                value,
            });
        }
        return;
    }
    let span = (b - a) as f64;
    let k = BASELINE_SAMPLES as f64;
    for i in 0..BASELINE_SAMPLES {
        let at = a + (span * (i as f64 + 0.5) / k) as i64;
        if let Some(value) = f(at).filter(|x| x.is_finite()) {
            pieces.push(Piece {
                start: a + (span * i as f64 / k) as i64,
                end: a + (span * (i as f64 + 1.0) / k) as i64,
                raw_weight: 1.0,
                value,
            });
        }
    }
}

/// Whether an item is a running total whose rate is what varies: declared
/// cumulative by its reader in some session, or numeric, never decreasing
/// within any session and growing at least [`MIN_COUNTER_STEPS`] times.
pub(super) fn is_cumulative(tracks: &[Option<&ContextTrack>], declared: &[Option<CounterKind>]) -> bool {
    if declared.contains(&Some(CounterKind::Cumulative)) {
        return true;
    }
    let mut steps = 0usize;
    for t in tracks.iter().flatten() {
        if t.kind() == ContextType::String {
            return false;
        }
        for i in 1..t.len() {
            let (Some(a), Some(b)) = (t.samples.get_f64(i - 1), t.samples.get_f64(i)) else {
                return false;
            };
            if b < a || !b.is_finite() {
                return false;
            }
            steps += usize::from(b > a);
        }
    }
    steps >= MIN_COUNTER_STEPS
}

/// A running total without its wraps and resets: each decrease counts as a
/// wrap at `wraps_at` when it is known, else as a reset to 0, so the result
/// only grows. Held (step) when the item is, interpolated otherwise.
pub(super) fn unwrapped(t: &ContextTrack, wraps_at: Option<f64>) -> ContextTrack {
    let mut total = 0.0;
    let mut prev: Option<f64> = None;
    let mut values = Vec::with_capacity(t.len());
    for i in 0..t.len() {
        let v = t.samples.get_f64(i).unwrap_or(0.0);
        total += match prev {
            None => v,
            Some(p) if v >= p => v - p,
            Some(p) => match wraps_at {
                Some(w) if w > p => w - p + v,
                _ => v,
            },
        };
        prev = Some(v);
        values.push(total);
    }
    let step = !t.kind().is_continuous();
    ContextTrack {
        label: t.label.clone(),
        unit: t.unit.clone(),
        times: t.times.clone(),
        samples: if step {
            ContextSamples::Long(values.iter().map(|&v| v as i64).collect())
        } else {
            ContextSamples::Double(values)
        },
    }
}

/// The rate series of a running total: at each instant, the growth over the
/// `window_ns` centred on it divided by the window (units per second). Near
/// the first and last record the window is cut to them; the rate is defined
/// where at least half of the window remains.
pub(super) fn rate_series(totals: &[Option<ContextTrack>], occurrences: &[Occurrence], window_ns: i64) -> Series {
    let half = (window_ns / 2).max(1);
    let rate = |t: &ContextTrack, at: i64| -> Option<f64> {
        let (first, last) = (*t.times.first()?, *t.times.last()?);
        let (a, b) = ((at - half).max(first), (at + half).min(last));
        if b - a < half {
            return None;
        }
        let va = value_at(t, a)?.as_f64()?;
        let vb = value_at(t, b)?.as_f64()?;
        Some((vb - va) * 1e9 / (b - a) as f64)
    };
    let mut out = Series::default();
    for o in occurrences {
        let Some(t) = totals.get(o.session).and_then(Option::as_ref) else {
            continue;
        };
        if let Some(r) = rate(t, o.ts_ns as i64).filter(|r| r.is_finite()) {
            out.at.push((o.session, o.ts_ns as i64));
            out.values.push(r);
        }
    }
    for t in totals {
        let mut pieces = Vec::new();
        if let Some(t) = t {
            if let (Some(&a), Some(&b)) = (t.times.first(), t.times.last()) {
                if b - a >= half {
                    sampled(&mut pieces, Some(a), Some(b), |at| rate(t, at));
                }
            }
        }
        out.pieces.push(pieces);
    }
    out
}

/// For each session, how its reader declared the counter behind `label`
/// (`None` when the label is a context track or no counter).
pub(super) fn declared_kinds(sessions: &[Session], label: &str) -> Vec<Option<(CounterKind, Option<f64>)>> {
    sessions
        .iter()
        .map(|s| {
            if s.context.iter().any(|t| t.label == label) {
                return None;
            }
            s.counters
                .iter()
                .find(|c| c.name == label && !c.is_empty())
                .map(|c| (c.kind, c.wraps_at))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(values: &[i64]) -> ContextTrack {
        let mut t = ContextTrack::new("c", ContextType::Long);
        for (i, &v) in values.iter().enumerate() {
            t.push(i as i64 * 1_000_000_000, ContextValue::Long(v));
        }
        t
    }

    #[test]
    fn counters_are_recognised_from_their_data() {
        let grows = long(&[0, 5, 9, 9, 20, 31, 40, 41, 50, 60]);
        assert!(is_cumulative(&[Some(&grows)], &[None]));
        let once = long(&[0, 0, 0, 1, 1, 1, 1, 1, 1, 1]);
        assert!(!is_cumulative(&[Some(&once)], &[None]), "changed once is no counter");
        let dips = long(&[0, 5, 9, 8, 20, 31, 40, 41, 50, 60]);
        assert!(!is_cumulative(&[Some(&dips)], &[None]));
        assert!(is_cumulative(&[Some(&dips)], &[Some(CounterKind::Cumulative)]));
    }

    #[test]
    fn unwrapping_and_rates() {
        // Wraps at 100: 90 → 10 is +20.
        let t = long(&[80, 90, 10, 30]);
        let u = unwrapped(&t, Some(100.0));
        assert_eq!(u.samples, ContextSamples::Long(vec![80, 90, 110, 130]));
        let r = unwrapped(&t, None);
        assert_eq!(
            r.samples,
            ContextSamples::Long(vec![80, 90, 100, 120]),
            "a reset restarts from 0"
        );
        // Held values: over the 2 s around t = 1.5 s, the total goes 90 → 130.
        let occ = [Occurrence {
            session: 0,
            ts_ns: 1_500_000_000,
            thread: tracekit_model::ThreadId(0),
        }];
        let s = rate_series(&[Some(u)], &occ, 2_000_000_000);
        assert_eq!(s.values, vec![(110.0 - 80.0) / 2.0]);
        assert_eq!(s.pieces[0].len(), BASELINE_SAMPLES);
        // At the last record only the window's first half remains: 110 → 130 over 1 s.
        let end = [Occurrence {
            session: 0,
            ts_ns: 3_000_000_000,
            thread: tracekit_model::ThreadId(0),
        }];
        assert_eq!(
            rate_series(&[Some(unwrapped(&t, Some(100.0)))], &end, 2_000_000_000).values,
            vec![20.0]
        );
    }
}

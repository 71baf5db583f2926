//! Hints on context (seed 000 §5.9), ranked.
//!
//! At every occurrence of a problem the value of each context item is looked
//! up. Int, long and string items report their five most frequent values
//! with their shares; float and double items the interval holding the middle
//! 90% of values (5th to 95th percentile, linear interpolation between
//! closest ranks).
//!
//! Beyond the seed, items are *ranked* by how far their values at the
//! occurrences differ from their values over the whole session, weighted by
//! time: for numbers (int, long, float, double) the Kolmogorov–Smirnov
//! distance between the occurrence values and the session's time-weighted
//! values (exact step durations for int/long, an even sampling of the
//! interpolated line for float/double); for strings, which have no order,
//! the total variation distance between the two distributions. Both lie in
//! [0, 1]; an item that never changes scores 0. Ordered distances matter:
//! a steadily growing counter has a new value at every occurrence, which a
//! category-based distance would wrongly call maximally suspicious. The
//! suspect comes first.

use crate::context::value_at;
use crate::problems::{horizon, Occurrence};
use serde::Serialize;
use std::collections::HashMap;
use tracekit_model::{ContextTrack, ContextType, ContextValue, Session};

/// Evenly spaced samples taken per session for a continuous item's baseline.
const BASELINE_SAMPLES: usize = 4096;

/// One value and its share of the occurrences where the item was defined.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueShare {
    /// The value.
    pub value: ContextValue,
    /// Share in [0, 1].
    pub share: f64,
}

/// The statistics of one context item at the occurrences.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HintStats {
    /// Int, long and string items.
    Discrete {
        /// Up to five most frequent values.
        top_values: Vec<ValueShare>,
    },
    /// Float and double items (`None` when undefined at every occurrence).
    Continuous {
        /// 5th percentile.
        p5: Option<f64>,
        /// 95th percentile.
        p95: Option<f64>,
    },
}

/// A hint about one context item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hint {
    /// The item's label.
    pub label: String,
    /// Its type name.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Values at the occurrences.
    #[serde(flatten)]
    pub stats: HintStats,
    /// How different the values at the occurrences are from the whole session (0–1).
    pub score: f64,
    /// Occurrences at which the item had a value.
    pub defined: usize,
}

/// Computes ranked hints for every context item of the sessions (pooled by label).
pub fn hints(sessions: &[Session], occurrences: &[Occurrence]) -> Vec<Hint> {
    let mut labels: Vec<(String, ContextType)> = Vec::new();
    for s in sessions {
        for t in &s.context {
            if !labels.iter().any(|(l, _)| *l == t.label) {
                labels.push((t.label.clone(), t.kind()));
            }
        }
    }
    let mut out: Vec<Hint> = labels
        .into_iter()
        .map(|(label, kind)| {
            let tracks: Vec<Option<&ContextTrack>> = sessions
                .iter()
                .map(|s| s.context.iter().find(|t| t.label == label && t.kind() == kind))
                .collect();
            let values: Vec<ContextValue> = occurrences
                .iter()
                .filter_map(|o| {
                    tracks
                        .get(o.session)
                        .copied()
                        .flatten()
                        .and_then(|t| value_at(t, o.ts_ns as i64))
                })
                .collect();
            let defined = values.len();
            let (stats, score) = match kind {
                ContextType::Float | ContextType::Double => continuous(&values, sessions, &tracks),
                ContextType::Int | ContextType::Long => {
                    let (stats, _) = discrete(&values, sessions, &tracks);
                    (stats, ordered_score(&values, sessions, &tracks))
                }
                ContextType::String => discrete(&values, sessions, &tracks),
            };
            Hint {
                label,
                kind: kind.name(),
                stats,
                score,
                defined,
            }
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.label.cmp(&b.label)));
    out
}

fn key(v: &ContextValue) -> String {
    v.to_string()
}

fn discrete(values: &[ContextValue], sessions: &[Session], tracks: &[Option<&ContextTrack>]) -> (HintStats, f64) {
    let mut counts: HashMap<String, (usize, ContextValue, usize)> = HashMap::new();
    for (i, v) in values.iter().enumerate() {
        counts.entry(key(v)).or_insert((0, v.clone(), i)).0 += 1;
    }
    let n = values.len().max(1) as f64;
    let mut top: Vec<(usize, ContextValue, usize)> = counts.values().cloned().collect();
    top.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(&b.2)));
    let top_values = top
        .iter()
        .take(5)
        .map(|(c, v, _)| ValueShare {
            value: v.clone(),
            share: *c as f64 / n,
        })
        .collect();
    // Time-weighted baseline over each session's defined span.
    let mut base: HashMap<String, f64> = HashMap::new();
    let mut total = 0.0;
    for (s, t) in sessions.iter().zip(tracks) {
        let Some(t) = t else { continue };
        let end = horizon(s);
        for i in 0..t.len() {
            let stop = if i + 1 < t.len() { t.times[i + 1] } else { end };
            let d = (stop - t.times[i]).max(0) as f64;
            *base.entry(key(&t.samples.get(i))).or_default() += d;
            total += d;
        }
    }
    if values.is_empty() || total <= 0.0 {
        return (HintStats::Discrete { top_values }, 0.0);
    }
    let mut tv = 0.0;
    let mut seen = std::collections::HashSet::new();
    for (k, (c, _, _)) in &counts {
        tv += (*c as f64 / n - base.get(k).copied().unwrap_or(0.0) / total).abs();
        seen.insert(k.clone());
    }
    for (k, d) in &base {
        if !seen.contains(k) {
            tv += d / total;
        }
    }
    (HintStats::Discrete { top_values }, (tv / 2.0).clamp(0.0, 1.0))
}

/// Time-weighted KS distance for step-valued numbers (int, long).
fn ordered_score(values: &[ContextValue], sessions: &[Session], tracks: &[Option<&ContextTrack>]) -> f64 {
    let mut occ: Vec<(f64, f64)> = values
        .iter()
        .filter_map(ContextValue::as_f64)
        .map(|v| (v, 1.0))
        .collect();
    let mut base: Vec<(f64, f64)> = Vec::new();
    for (s, t) in sessions.iter().zip(tracks) {
        let Some(t) = t else { continue };
        let end = horizon(s);
        for i in 0..t.len() {
            let stop = if i + 1 < t.len() { t.times[i + 1] } else { end };
            if let Some(v) = t.samples.get_f64(i) {
                base.push((v, (stop - t.times[i]).max(0) as f64));
            }
        }
    }
    weighted_ks(&mut occ, &mut base)
}

/// Kolmogorov–Smirnov distance between two weighted samples.
fn weighted_ks(a: &mut [(f64, f64)], b: &mut [(f64, f64)]) -> f64 {
    let wa: f64 = a.iter().map(|x| x.1).sum();
    let wb: f64 = b.iter().map(|x| x.1).sum();
    if wa <= 0.0 || wb <= 0.0 {
        return 0.0;
    }
    a.sort_by(|x, y| x.0.total_cmp(&y.0));
    b.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut i, mut j, mut ca, mut cb, mut d) = (0usize, 0usize, 0f64, 0f64, 0f64);
    while i < a.len() || j < b.len() {
        let x = match (a.get(i), b.get(j)) {
            (Some(p), Some(q)) => p.0.min(q.0),
            (Some(p), None) => p.0,
            (None, Some(q)) => q.0,
            (None, None) => break,
        };
        while i < a.len() && a[i].0 <= x {
            ca += a[i].1;
            i += 1;
        }
        while j < b.len() && b[j].0 <= x {
            cb += b[j].1;
            j += 1;
        }
        d = d.max((ca / wa - cb / wb).abs());
    }
    d.clamp(0.0, 1.0)
}

/// Percentile with linear interpolation between closest ranks (`p` in 0..=1).
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let pos = p * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

fn continuous(values: &[ContextValue], sessions: &[Session], tracks: &[Option<&ContextTrack>]) -> (HintStats, f64) {
    let mut v: Vec<f64> = values
        .iter()
        .filter_map(ContextValue::as_f64)
        .filter(|x| x.is_finite())
        .collect();
    v.sort_by(f64::total_cmp);
    let stats = HintStats::Continuous {
        p5: percentile(&v, 0.05),
        p95: percentile(&v, 0.95),
    };
    let mut base: Vec<f64> = Vec::new();
    for (_, t) in sessions.iter().zip(tracks) {
        let Some(t) = t else { continue };
        let (Some(&a), Some(&b)) = (t.times.first(), t.times.last()) else {
            continue;
        };
        if b <= a {
            base.extend(t.samples.get_f64(0));
            continue;
        }
        for k in 0..BASELINE_SAMPLES {
            let at = a + ((b - a) as f64 * (k as f64 + 0.5) / BASELINE_SAMPLES as f64) as i64;
            if let Some(x) = value_at(t, at).and_then(|x| x.as_f64()) {
                base.push(x);
            }
        }
    }
    let mut occ: Vec<(f64, f64)> = v.iter().map(|&x| (x, 1.0)).collect();
    let mut base: Vec<(f64, f64)> = base.into_iter().filter(|x| x.is_finite()).map(|x| (x, 1.0)).collect();
    (stats, weighted_ks(&mut occ, &mut base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_ks() {
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.05), Some(5.0));
        assert_eq!(percentile(&v, 0.95), Some(95.0));
        assert_eq!(percentile(&[], 0.5), None);
        let w = |v: &[f64]| v.iter().map(|&x| (x, 1.0)).collect::<Vec<_>>();
        assert_eq!(weighted_ks(&mut w(&[1.0, 2.0]), &mut w(&[1.0, 2.0])), 0.0);
        assert_eq!(weighted_ks(&mut w(&[1.0, 2.0]), &mut w(&[3.0, 4.0])), 1.0);
        // Weights: the baseline spends 3/4 of its time at 0.
        assert_eq!(weighted_ks(&mut w(&[1.0]), &mut [(0.0, 3.0), (1.0, 1.0)]), 0.75);
    }
}

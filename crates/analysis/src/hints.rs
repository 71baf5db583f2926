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
    let items: Vec<Vec<std::borrow::Cow<'_, ContextTrack>>> = sessions.iter().map(Session::context_items).collect();
    let mut labels: Vec<(String, ContextType)> = Vec::new();
    for s in &items {
        for t in s {
            if !labels.iter().any(|(l, _)| *l == t.label) {
                labels.push((t.label.clone(), t.kind()));
            }
        }
    }
    // Where each session's last step value stops holding.
    let ends: Vec<i64> = sessions.iter().map(horizon).collect();
    let mut out: Vec<Hint> = labels
        .into_iter()
        .map(|(label, kind)| {
            let tracks: Vec<Option<&ContextTrack>> = items
                .iter()
                .map(|s| s.iter().map(|t| &**t).find(|t| t.label == label && t.kind() == kind))
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
                    (discrete_stats(&values), ordered_score(&values, &tracks, &ends))
                }
                ContextType::String => (discrete_stats(&values), category_score(&values, &tracks, &ends)),
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

/// Every record of the step-valued tracks with how long it held (ns), up to
/// its session's end.
fn held<'a>(
    tracks: &'a [Option<&'a ContextTrack>],
    ends: &'a [i64],
) -> impl Iterator<Item = (&'a ContextTrack, usize, f64)> + 'a {
    tracks.iter().zip(ends).flat_map(|(t, &end)| {
        t.iter().flat_map(move |t| {
            (0..t.len()).map(move |i| {
                let stop = if i + 1 < t.len() { t.times[i + 1] } else { end };
                (*t, i, (stop - t.times[i]).max(0) as f64)
            })
        })
    })
}

/// Up to five most frequent values at the occurrences, first seen first on ties.
fn discrete_stats(values: &[ContextValue]) -> HintStats {
    let mut counts: HashMap<String, (usize, ContextValue, usize)> = HashMap::new();
    for (i, v) in values.iter().enumerate() {
        counts.entry(key(v)).or_insert((0, v.clone(), i)).0 += 1;
    }
    let n = values.len().max(1) as f64;
    let mut top: Vec<(usize, ContextValue, usize)> = counts.into_values().collect();
    top.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(&b.2)));
    let top_values = top
        .into_iter()
        .take(5)
        .map(|(c, value, _)| ValueShare {
            value,
            share: c as f64 / n,
        })
        .collect();
    HintStats::Discrete { top_values }
}

/// Total variation distance between the occurrence values and the
/// time-weighted values over the sessions (strings: no order to use).
fn category_score(values: &[ContextValue], tracks: &[Option<&ContextTrack>], ends: &[i64]) -> f64 {
    let mut base: HashMap<String, f64> = HashMap::new();
    let mut total = 0.0;
    for (t, i, d) in held(tracks, ends) {
        *base.entry(key(&t.samples.get(i))).or_default() += d;
        total += d;
    }
    if values.is_empty() || total <= 0.0 {
        return 0.0;
    }
    let mut occ: HashMap<String, usize> = HashMap::new();
    for v in values {
        *occ.entry(key(v)).or_default() += 1;
    }
    let n = values.len() as f64;
    let mut tv: f64 = occ
        .iter()
        .map(|(k, &c)| (c as f64 / n - base.get(k).copied().unwrap_or(0.0) / total).abs())
        .sum();
    tv += base
        .iter()
        .filter(|(k, _)| !occ.contains_key(*k))
        .map(|(_, d)| d / total)
        .sum::<f64>();
    (tv / 2.0).clamp(0.0, 1.0)
}

/// Time-weighted KS distance for step-valued numbers (int, long).
fn ordered_score(values: &[ContextValue], tracks: &[Option<&ContextTrack>], ends: &[i64]) -> f64 {
    let mut occ: Vec<(f64, f64)> = values
        .iter()
        .filter_map(ContextValue::as_f64)
        .map(|v| (v, 1.0))
        .collect();
    let mut base: Vec<(f64, f64)> = held(tracks, ends)
        .filter_map(|(t, i, d)| t.samples.get_f64(i).map(|v| (v, d)))
        .collect();
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

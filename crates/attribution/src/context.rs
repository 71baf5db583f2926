//! Which context goes with high power: context items ranked against the
//! power track.
//!
//! The power's span is cut into [`CELLS`] equal cells; each cell has its
//! mean power and each item its value at the cell's middle. Cells are
//! grouped by the item's value (strings and numbers with at most
//! [`MAX_GROUPS`] distinct values), or, for numbers with more, into
//! [`MAX_GROUPS`] bins of equal time between quantiles. The score is the
//! *correlation ratio* η²: the share of the power's variance across cells
//! that the groups' mean powers explain (0: the power does not depend on
//! the item; 1: the item's value fixes the power). Each hint lists its
//! groups' share of the time, share of the energy and mean power, so it
//! says which values go with high power. Cells where an item has no value
//! yet are left out of that item's score.

use serde::Serialize;
use tracekit_analysis::context::value_at;
use tracekit_energy::PowerSamples;
use tracekit_model::{ContextValue, Session};

/// Cells the span is cut into.
pub const CELLS: usize = 4096;
/// Most groups per item.
pub const MAX_GROUPS: usize = 10;

/// One value (or range of values) of an item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerGroup {
    /// The value, or `[lo, hi]` for a range of numbers.
    pub value: String,
    /// Share of the time the item held it, 0–1.
    pub time_share: f64,
    /// Share of the energy spent meanwhile, 0–1.
    pub energy_share: f64,
    /// Mean power meanwhile, W.
    pub mean_power_w: f64,
}

/// One context item against power.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerHint {
    /// The item's label.
    pub label: String,
    /// Its type name.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// η², 0–1.
    pub score: f64,
    /// Share of the time the item had a value, 0–1.
    pub defined: f64,
    /// Its groups, highest mean power first.
    pub groups: Vec<PowerGroup>,
}

/// Mean power of each cell, and the cells' middles.
fn cells(power: &PowerSamples) -> Option<(Vec<f64>, Vec<i64>)> {
    let (&a, &b) = (power.times.first()?, power.times.last()?);
    if b <= a {
        return None;
    }
    let curve = crate::SplitCurve::new(power, f64::INFINITY);
    let mut cur = curve.cursor();
    let edge = |k: usize| a + ((b - a) as i128 * k as i128 / CELLS as i128) as i64;
    let mut watts = Vec::with_capacity(CELLS);
    let mut mids = Vec::with_capacity(CELLS);
    let mut prev = cur.at(edge(0));
    for k in 0..CELLS {
        let (t0, t1) = (edge(k), edge(k + 1));
        let now = cur.at(t1);
        let e = (now.base - prev.base) + (now.excess - prev.excess);
        prev = now;
        watts.push(if t1 > t0 { e / ((t1 - t0) as f64 * 1e-9) } else { 0.0 });
        mids.push(t0 + (t1 - t0) / 2);
    }
    Some((watts, mids))
}

/// Ranks every context item of `session` (counters included) except
/// those labelled in `exclude` (the power tracks themselves).
pub fn power_hints(session: &Session, power: &PowerSamples, exclude: &[String]) -> Vec<PowerHint> {
    let Some((watts, mids)) = cells(power) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in session.context_items() {
        if exclude.iter().any(|e| e.eq_ignore_ascii_case(&item.label)) {
            continue;
        }
        let values: Vec<Option<ContextValue>> = mids.iter().map(|&t| value_at(&item, t)).collect();
        let defined: Vec<usize> = (0..CELLS).filter(|&k| values[k].is_some()).collect();
        if defined.len() < 2 {
            continue;
        }
        // Group key per defined cell.
        let mut distinct: Vec<String> = defined
            .iter()
            .map(|&k| values[k].as_ref().expect("defined").to_string())
            .collect();
        distinct.sort();
        distinct.dedup();
        let numeric: Option<Vec<f64>> = defined
            .iter()
            .map(|&k| values[k].as_ref().and_then(ContextValue::as_f64))
            .collect();
        let (keys, labels): (Vec<usize>, Vec<String>) = match numeric {
            Some(nums) if distinct.len() > MAX_GROUPS => {
                let mut sorted = nums.clone();
                sorted.sort_by(f64::total_cmp);
                let cuts: Vec<f64> = (1..MAX_GROUPS).map(|g| sorted[g * sorted.len() / MAX_GROUPS]).collect();
                let mut edges = vec![sorted[0]];
                for c in cuts {
                    if c > *edges.last().expect("non-empty") {
                        edges.push(c);
                    }
                }
                let top = *sorted.last().expect("non-empty");
                let keys = nums.iter().map(|v| edges.partition_point(|e| e <= v) - 1).collect();
                let labels = (0..edges.len())
                    .map(|g| {
                        let hi = edges.get(g + 1).copied().unwrap_or(top);
                        format!("[{}, {}]", short(edges[g]), short(hi))
                    })
                    .collect();
                (keys, labels)
            }
            _ => {
                let keys = defined
                    .iter()
                    .map(|&k| {
                        let s = values[k].as_ref().expect("defined").to_string();
                        distinct.binary_search(&s).expect("listed")
                    })
                    .collect();
                (keys, distinct.clone())
            }
        };
        let g = labels.len();
        let (mut n, mut sum) = (vec![0usize; g], vec![0.0f64; g]);
        for (i, &k) in defined.iter().enumerate() {
            n[keys[i]] += 1;
            sum[keys[i]] += watts[k];
        }
        let total: f64 = defined.iter().map(|&k| watts[k]).sum();
        let mean = total / defined.len() as f64;
        let ss_tot: f64 = defined.iter().map(|&k| (watts[k] - mean) * (watts[k] - mean)).sum();
        let ss_between: f64 = (0..g)
            .filter(|&x| n[x] > 0)
            .map(|x| {
                let m = sum[x] / n[x] as f64;
                n[x] as f64 * (m - mean) * (m - mean)
            })
            .sum();
        let score = if ss_tot > 0.0 {
            (ss_between / ss_tot).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let mut groups: Vec<PowerGroup> = (0..g)
            .filter(|&x| n[x] > 0)
            .map(|x| PowerGroup {
                value: labels[x].clone(),
                time_share: n[x] as f64 / defined.len() as f64,
                energy_share: if total != 0.0 { sum[x] / total } else { 0.0 },
                mean_power_w: sum[x] / n[x] as f64,
            })
            .collect();
        groups.sort_by(|a, b| b.mean_power_w.total_cmp(&a.mean_power_w));
        out.push(PowerHint {
            label: item.label.clone(),
            kind: item.kind().name(),
            score,
            defined: defined.len() as f64 / CELLS as f64,
            groups,
        });
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.label.cmp(&b.label)));
    out
}

/// A number in at most four significant digits.
fn short(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.4}")
    }
}

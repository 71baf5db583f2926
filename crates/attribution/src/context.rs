//! Which context goes with high power: context items ranked against the
//! power track.
//!
//! The power's span is cut into equal cells of about [`CELL_NS`] (at least
//! [`MIN_CELLS`], at most [`MAX_CELLS`]); each cell has its
//! mean power and each item its value at the cell's middle. Cells are
//! grouped by the item's value (strings and numbers with at most
//! [`MAX_GROUPS`] distinct values), or, for numbers with more, into
//! [`MAX_GROUPS`] bins of equal time between quantiles. The *correlation
//! ratio* η² is the share of the power's variance across cells that the
//! groups' mean powers explain (0: the power does not depend on the item;
//! 1: the item's value fixes the power).
//!
//! Both the power and many items drift slowly (a random-walking signal
//! strength, a growing traffic counter), and any two slow signals explain
//! some of each other's variance by chance. So the score is η² minus its
//! chance level: the same item's η² against the power shifted circularly
//! by [`SHIFTS`] offsets spread over the span (which keeps both signals'
//! own slowness but breaks their alignment), mean plus two standard
//! deviations (clamped at 0): an item scores above 0 only when its
//! alignment with the power explains more than chance alignments mostly do. Each
//! hint lists its groups' share of the time, share of the energy and mean
//! power, so it says which values go with high power. Cells where an item
//! has no value yet are left out of that item's score.

use serde::Serialize;
use tracekit_analysis::context::value_at;
use tracekit_energy::PowerSamples;
use tracekit_model::{ContextValue, Session};

/// Most cells the span is cut into.
pub const MAX_CELLS: usize = 4096;
/// Fewest cells.
pub const MIN_CELLS: usize = 64;
/// Preferred cell length, ns: context items change on the scale of
/// seconds, and finer cells only add the power's own flicker (frames, GPU
/// bursts) to the variance no item can explain.
pub const CELL_NS: i64 = 250_000_000;
/// Most groups per item.
pub const MAX_GROUPS: usize = 10;
/// Circular shifts of the power that give an item's chance level.
pub const SHIFTS: usize = 16;

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
    /// η² above its chance level, 0–1.
    pub score: f64,
    /// η² itself, 0–1.
    pub eta2: f64,
    /// η²'s chance level: mean + 2 sd of η² against the power shifted in time.
    pub chance: f64,
    /// Share of the time the item had a value, 0–1.
    pub defined: f64,
    /// Its groups, highest mean power first.
    pub groups: Vec<PowerGroup>,
}

/// `tracekit energy --hints --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerHintsReport {
    /// Where the power came from.
    pub power_source: String,
    /// The items, most power explained first.
    pub hints: Vec<PowerHint>,
}

/// Mean power of each cell, and the cells' middles.
fn cells(power: &PowerSamples) -> Option<(Vec<f64>, Vec<i64>)> {
    let (&a, &b) = (power.times.first()?, power.times.last()?);
    if b <= a {
        return None;
    }
    let curve = crate::SplitCurve::new(power, f64::INFINITY);
    let mut cur = curve.cursor();
    let cells = (((b - a) / CELL_NS) as usize).clamp(MIN_CELLS, MAX_CELLS);
    let edge = |k: usize| a + ((b - a) as i128 * k as i128 / cells as i128) as i64;
    let mut watts = Vec::with_capacity(cells);
    let mut mids = Vec::with_capacity(cells);
    let mut prev = cur.at(edge(0));
    for k in 0..cells {
        let (t0, t1) = (edge(k), edge(k + 1));
        let now = cur.at(t1);
        let e = (now.base - prev.base) + (now.excess - prev.excess);
        prev = now;
        watts.push(if t1 > t0 { e / ((t1 - t0) as f64 * 1e-9) } else { 0.0 });
        mids.push(t0 + (t1 - t0) / 2);
    }
    Some((watts, mids))
}

/// One item's cells grouped by its value.
struct Grouping {
    label: String,
    kind: &'static str,
    /// Cells where the item has a value.
    defined: Vec<usize>,
    /// Group of each defined cell.
    keys: Vec<usize>,
    /// Group labels.
    labels: Vec<String>,
}

fn grouping(item: &tracekit_model::ContextTrack, mids: &[i64]) -> Option<Grouping> {
    let values: Vec<Option<ContextValue>> = mids.iter().map(|&t| value_at(item, t)).collect();
    let defined: Vec<usize> = (0..mids.len()).filter(|&k| values[k].is_some()).collect();
    if defined.len() < 2 {
        return None;
    }
    let text = |k: usize| values[k].as_ref().expect("defined").to_string();
    let mut distinct: Vec<String> = defined.iter().map(|&k| text(k)).collect();
    distinct.sort();
    distinct.dedup();
    let numeric: Option<Vec<f64>> = defined
        .iter()
        .map(|&k| values[k].as_ref().and_then(ContextValue::as_f64))
        .collect();
    let (keys, labels) = match numeric {
        Some(nums) if distinct.len() > MAX_GROUPS => {
            let mut sorted = nums.clone();
            sorted.sort_by(f64::total_cmp);
            let mut edges = vec![sorted[0]];
            for g in 1..MAX_GROUPS {
                let c = sorted[g * sorted.len() / MAX_GROUPS];
                if c > *edges.last().expect("non-empty") {
                    edges.push(c);
                }
            }
            let top = *sorted.last().expect("non-empty");
            let keys = nums.iter().map(|v| edges.partition_point(|e| e <= v) - 1).collect();
            let labels = (0..edges.len())
                .map(|g| {
                    format!(
                        "[{}, {}]",
                        short(edges[g]),
                        short(edges.get(g + 1).copied().unwrap_or(top))
                    )
                })
                .collect();
            (keys, labels)
        }
        _ => {
            let keys = defined
                .iter()
                .map(|&k| distinct.binary_search(&text(k)).expect("listed"))
                .collect();
            (keys, distinct)
        }
    };
    Some(Grouping {
        label: item.label.clone(),
        kind: item.kind().name(),
        defined,
        keys,
        labels,
    })
}

/// η² of `g` against `y` shifted by `shift` cells, and the groups' counts
/// and sums.
fn eta2(g: &Grouping, y: &[f64], shift: usize) -> (f64, Vec<usize>, Vec<f64>) {
    let n_cells = y.len();
    let ng = g.labels.len();
    let (mut n, mut sum) = (vec![0usize; ng], vec![0.0f64; ng]);
    let mut total = 0.0;
    for (i, &k) in g.defined.iter().enumerate() {
        let w = y[(k + shift) % n_cells];
        n[g.keys[i]] += 1;
        sum[g.keys[i]] += w;
        total += w;
    }
    let mean = total / g.defined.len() as f64;
    let ss_tot: f64 = g
        .defined
        .iter()
        .map(|&k| {
            let w = y[(k + shift) % n_cells];
            (w - mean) * (w - mean)
        })
        .sum();
    let ss_between: f64 = (0..ng)
        .filter(|&x| n[x] > 0)
        .map(|x| {
            let m = sum[x] / n[x] as f64;
            n[x] as f64 * (m - mean) * (m - mean)
        })
        .sum();
    let e = if ss_tot > 0.0 {
        (ss_between / ss_tot).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (e, n, sum)
}

/// η² of `g` against `y`, and its chance level (mean + 2 sd over shifts).
fn scored(g: &Grouping, y: &[f64]) -> (f64, f64) {
    let (e, _, _) = eta2(g, y, 0);
    let shifted: Vec<f64> = (1..=SHIFTS).map(|j| eta2(g, y, j * y.len() / (SHIFTS + 1)).0).collect();
    let m = shifted.iter().sum::<f64>() / SHIFTS as f64;
    let sd = (shifted.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (SHIFTS - 1) as f64).sqrt();
    (e, m + 2.0 * sd)
}

/// Ranks every context item of `session` (counters included) except
/// those labelled in `exclude` (the power tracks themselves). Items are
/// scored each on its own: two items that measure the same thing (an
/// activity and the load it causes) score alike, and the hint's groups say
/// which values go with high power.
pub fn power_hints(session: &Session, power: &PowerSamples, exclude: &[String]) -> Vec<PowerHint> {
    let Some((watts, mids)) = cells(power) else {
        return Vec::new();
    };
    let mut out: Vec<PowerHint> = session
        .context_items()
        .iter()
        .filter(|item| !exclude.iter().any(|e| e.eq_ignore_ascii_case(&item.label)))
        .filter_map(|item| grouping(item, &mids))
        .map(|g| {
            let (e, chance) = scored(&g, &watts);
            let (_, n, sum) = eta2(&g, &watts, 0);
            let total: f64 = sum.iter().sum();
            let mut groups: Vec<PowerGroup> = (0..g.labels.len())
                .filter(|&x| n[x] > 0)
                .map(|x| PowerGroup {
                    value: g.labels[x].clone(),
                    time_share: n[x] as f64 / g.defined.len() as f64,
                    energy_share: if total != 0.0 { sum[x] / total } else { 0.0 },
                    mean_power_w: sum[x] / n[x] as f64,
                })
                .collect();
            groups.sort_by(|a, b| b.mean_power_w.total_cmp(&a.mean_power_w));
            PowerHint {
                label: g.label.clone(),
                kind: g.kind,
                score: (e - chance).max(0.0),
                eta2: e,
                chance,
                defined: g.defined.len() as f64 / watts.len() as f64,
                groups,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.eta2.total_cmp(&a.eta2))
            .then_with(|| a.label.cmp(&b.label))
    });
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

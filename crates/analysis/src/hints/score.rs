//! The distances hints are ranked by, and the baselines they compare with:
//! the whole sessions (the raw score) or the times near each occurrence
//! (the time-adjusted score).

use super::series::{Piece, Scale, Series};
use std::collections::HashMap;

/// The scores of one item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Scores {
    /// Occurrence values against the whole sessions.
    pub raw: f64,
    /// Occurrence values against the values near each occurrence's time.
    pub adjusted: f64,
    /// The raw score time alone explains: the values near the occurrences'
    /// times against the whole sessions.
    pub from_time: f64,
}

/// Distance between two weighted samples of values: Kolmogorov–Smirnov for
/// numbers, total variation for categories. In [0, 1]; 0 when either side
/// has no weight.
pub(super) fn distance(scale: Scale, a: &mut [(f64, f64)], b: &mut [(f64, f64)]) -> f64 {
    match scale {
        Scale::Ordered => weighted_ks(a, b),
        Scale::Categorical => total_variation(a, b),
    }
}

/// Kolmogorov–Smirnov distance between two weighted samples.
pub(super) fn weighted_ks(a: &mut [(f64, f64)], b: &mut [(f64, f64)]) -> f64 {
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

/// Total variation distance between two weighted samples of categories.
fn total_variation(a: &mut [(f64, f64)], b: &mut [(f64, f64)]) -> f64 {
    let wa: f64 = a.iter().map(|x| x.1).sum();
    let wb: f64 = b.iter().map(|x| x.1).sum();
    if wa <= 0.0 || wb <= 0.0 {
        return 0.0;
    }
    let mut shares: HashMap<u64, (f64, f64)> = HashMap::new();
    for &(v, w) in a.iter() {
        shares.entry(v.to_bits()).or_default().0 += w;
    }
    for &(v, w) in b.iter() {
        shares.entry(v.to_bits()).or_default().1 += w;
    }
    let mut keys: Vec<u64> = shares.keys().copied().collect();
    keys.sort_unstable();
    let tv: f64 = keys
        .iter()
        .map(|k| {
            let (x, y) = shares[k];
            (x / wa - y / wb).abs()
        })
        .sum();
    (tv / 2.0).clamp(0.0, 1.0)
}

/// The density over session time with which the occurrences look at
/// nearby times: each occurrence spreads a weight of `1/n` evenly over the
/// part of `[t − half, t + half]` where the item has a value in any
/// session. Stored as the breakpoints of its integral.
struct WindowDensity {
    /// Breakpoint times, ascending.
    at: Vec<f64>,
    /// Integral of the density up to each breakpoint.
    integral: Vec<f64>,
    /// Density right after each breakpoint.
    slope: Vec<f64>,
}

impl WindowDensity {
    fn new(series: &Series, half: i64) -> WindowDensity {
        let domains: Vec<(i64, i64)> = (0..series.pieces.len()).filter_map(|s| series.domain(s)).collect();
        let n = series.at.len() as f64;
        let mut steps: Vec<(f64, f64)> = Vec::with_capacity(2 * series.at.len());
        for &(_, t) in &series.at {
            let (a, b) = (t.saturating_sub(half), t.saturating_add(half));
            let cover: i64 = domains.iter().map(|&(x, y)| (b.min(y) - a.max(x)).max(0)).sum();
            if cover <= 0 {
                continue;
            }
            let c = 1.0 / (n * cover as f64);
            steps.push((a as f64, c));
            steps.push((b as f64, -c));
        }
        WindowDensity::from_steps(steps)
    }

    /// The density from `(time, change of density)` steps in any order.
    fn from_steps(mut steps: Vec<(f64, f64)>) -> WindowDensity {
        steps.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut at = Vec::with_capacity(steps.len());
        let mut integral = Vec::with_capacity(steps.len());
        let mut slope = Vec::with_capacity(steps.len());
        let (mut acc, mut s, mut last) = (0.0f64, 0.0f64, f64::NEG_INFINITY);
        for (x, dc) in steps {
            if x > last && last.is_finite() {
                acc += s * (x - last);
            }
            s += dc;
            last = x;
            at.push(x);
            integral.push(acc);
            slope.push(s.max(0.0));
        }
        WindowDensity { at, integral, slope }
    }

    /// The integral of the density from −∞ to `t`.
    fn up_to(&self, t: f64) -> f64 {
        let k = self.at.partition_point(|&x| x <= t);
        if k == 0 {
            return 0.0;
        }
        self.integral[k - 1] + self.slope[k - 1] * (t - self.at[k - 1])
    }

    /// The weight of a piece of time.
    fn weight(&self, p: &Piece) -> f64 {
        (self.up_to(p.end as f64) - self.up_to(p.start as f64)).max(0.0)
    }
}

/// Raw, time-adjusted and time-explained scores of a series, comparing
/// occurrences with nearby times `half` ns on either side.
pub(super) fn scores(series: &Series, scale: Scale, half: i64) -> Scores {
    let occ: Vec<(f64, f64)> = series.values.iter().map(|&v| (v, 1.0)).collect();
    let whole: Vec<(f64, f64)> = series
        .pieces
        .iter()
        .flatten()
        .map(|p| (p.value, p.raw_weight))
        .collect();
    let raw = distance(scale, &mut occ.clone(), &mut whole.clone());
    if occ.is_empty() {
        return Scores {
            raw,
            adjusted: 0.0,
            from_time: 0.0,
        };
    }
    let density = WindowDensity::new(series, half);
    let mut near: Vec<(f64, f64)> = series
        .pieces
        .iter()
        .flatten()
        .map(|p| (p.value, density.weight(p)))
        .filter(|x| x.1 > 0.0)
        .collect();
    let adjusted = distance(scale, &mut occ.clone(), &mut near.clone());
    let from_time = distance(scale, &mut near, &mut whole.clone());
    Scores {
        raw,
        adjusted,
        from_time,
    }
}

/// KS distance of the occurrences' session times from times spread evenly
/// over the sessions (`ends` ns each, from 0): how much they cluster.
pub(super) fn time_clustering(times_s: &[f64], ends: &[i64]) -> f64 {
    let total: f64 = ends.iter().map(|&e| e.max(1) as f64 / 1e9).sum();
    if times_s.is_empty() || total <= 0.0 {
        return 0.0;
    }
    let cdf = |t: f64| ends.iter().map(|&e| t.clamp(0.0, e.max(1) as f64 / 1e9)).sum::<f64>() / total;
    let mut v = times_s.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut d = 0.0f64;
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j < v.len() && v[j] == v[i] {
            j += 1;
        }
        let f = cdf(v[i]);
        d = d.max((i as f64 / n - f).abs()).max((j as f64 / n - f).abs());
        i = j;
    }
    d.clamp(0.0, 1.0)
}

/// How unlike the occurrences' session times are from the times at which
/// the item had values like its value at each occurrence: time's
/// association beyond the item. Each occurrence looks at the pieces whose
/// value is the same (categories) or within `q` of its value in the item's
/// time-weighted distribution (numbers: the value's share of time, widened by
/// `q` on either side), weights them by duration to a total of `1/n`, and
/// the KS distance compares the occurrence times with the time those
/// pieces cover.
pub(super) fn time_beyond(series: &Series, scale: Scale, q: f64) -> Option<f64> {
    let pieces: Vec<&Piece> = series.pieces.iter().flatten().filter(|p| p.end > p.start).collect();
    if pieces.is_empty() || series.values.is_empty() {
        return None;
    }
    // Distinct values in order, with the time each held.
    let mut by_value: Vec<(f64, f64)> = pieces.iter().map(|p| (p.value, (p.end - p.start) as f64)).collect();
    by_value.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut values: Vec<f64> = Vec::new();
    let mut held: Vec<f64> = Vec::new();
    for (v, d) in by_value {
        if values.last() == Some(&v) {
            *held.last_mut().unwrap() += d;
        } else {
            values.push(v);
            held.push(d);
        }
    }
    let total: f64 = held.iter().sum();
    // below[k]: share of time with a value below values[k]; below[m] = 1.
    let mut below = Vec::with_capacity(values.len() + 1);
    let mut acc = 0.0;
    for d in &held {
        below.push(acc / total);
        acc += d;
    }
    below.push(1.0);
    // Each occurrence's neighbourhood is a range of distinct values.
    let ranges: Vec<Option<(usize, usize)>> = series
        .values
        .iter()
        .map(|&x| {
            let at = values.partition_point(|&v| v < x);
            let exact = values.get(at) == Some(&x);
            match scale {
                Scale::Categorical => exact.then_some((at, at)),
                Scale::Ordered => {
                    let lo_f = below[at] - q;
                    let hi_f = if exact { below[at + 1] } else { below[at] } + q;
                    // Values whose share of time [below[k], below[k+1]] meets [lo_f, hi_f].
                    let a = below[1..].partition_point(|&f| f <= lo_f);
                    let b = below[..values.len()].partition_point(|&f| f < hi_f);
                    let (a, b) = (a.min(at), b.max(at + usize::from(exact)));
                    (b > a).then(|| (a, b - 1))
                }
            }
        })
        .collect();
    let mut prefix = vec![0.0; values.len() + 1];
    for k in 0..values.len() {
        prefix[k + 1] = prefix[k] + held[k];
    }
    let used: Vec<(usize, usize, f64)> = ranges
        .iter()
        .flatten()
        .map(|&(a, b)| (a, b, prefix[b + 1] - prefix[a]))
        .filter(|x| x.2 > 0.0)
        .collect();
    if used.is_empty() {
        return None;
    }
    let n = used.len() as f64;
    // Weight per unit of time of each distinct value: a difference array.
    let mut diff = vec![0.0; values.len() + 1];
    for &(a, b, d) in &used {
        diff[a] += 1.0 / (n * d);
        diff[b + 1] -= 1.0 / (n * d);
    }
    let mut rate = Vec::with_capacity(values.len());
    let mut r = 0.0;
    for d in &diff[..values.len()] {
        r += d;
        rate.push(r.max(0.0));
    }
    // The time those weights cover, as a density over session time.
    let mut steps: Vec<(f64, f64)> = Vec::with_capacity(2 * pieces.len());
    for p in &pieces {
        let k = values.partition_point(|&v| v < p.value);
        if rate[k] > 0.0 {
            steps.push((p.start as f64, rate[k]));
            steps.push((p.end as f64, -rate[k]));
        }
    }
    let density = WindowDensity::from_steps(steps);
    let mut times: Vec<f64> = series
        .at
        .iter()
        .zip(&ranges)
        .filter(|(_, r)| r.is_some())
        .map(|(&(_, t), _)| t as f64)
        .collect();
    times.sort_by(f64::total_cmp);
    let m = times.len() as f64;
    let mut d = 0.0f64;
    let mut i = 0;
    while i < times.len() {
        let mut j = i;
        while j < times.len() && times[j] == times[i] {
            j += 1;
        }
        let g = density.up_to(times[i]);
        d = d.max((i as f64 / m - g).abs()).max((j as f64 / m - g).abs());
        i = j;
    }
    Some(d.clamp(0.0, 1.0))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_distances() {
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.05), Some(5.0));
        assert_eq!(percentile(&v, 0.95), Some(95.0));
        assert_eq!(percentile(&[], 0.5), None);
        let w = |v: &[f64]| v.iter().map(|&x| (x, 1.0)).collect::<Vec<_>>();
        assert_eq!(weighted_ks(&mut w(&[1.0, 2.0]), &mut w(&[1.0, 2.0])), 0.0);
        assert_eq!(weighted_ks(&mut w(&[1.0, 2.0]), &mut w(&[3.0, 4.0])), 1.0);
        // Weights: the baseline spends 3/4 of its time at 0.
        assert_eq!(weighted_ks(&mut w(&[1.0]), &mut [(0.0, 3.0), (1.0, 1.0)]), 0.75);
        assert_eq!(total_variation(&mut w(&[1.0]), &mut [(0.0, 3.0), (1.0, 1.0)]), 0.75);
        assert_eq!(total_variation(&mut w(&[1.0, 0.0]), &mut [(0.0, 1.0), (1.0, 1.0)]), 0.0);
    }

    #[test]
    fn clustering_of_times() {
        // Evenly spread over one 10 s session: small; all in the last second: large.
        let even: Vec<f64> = (0..10).map(|i| i as f64 + 0.5).collect();
        assert!((time_clustering(&even, &[10_000_000_000]) - 0.05).abs() < 1e-12);
        let late = [9.2, 9.5, 9.9];
        assert!((time_clustering(&late, &[10_000_000_000]) - 0.92).abs() < 1e-12);
    }

    #[test]
    fn the_window_density_gives_each_occurrence_its_share() {
        let piece = |start: i64, end: i64, value: f64| Piece {
            start,
            end,
            raw_weight: (end - start) as f64,
            value,
        };
        // One session, 0–100; occurrences at 10 (window clipped to 0–30) and 50 (30–70).
        let s = Series {
            at: vec![(0, 10), (0, 50)],
            values: vec![1.0, 2.0],
            pieces: vec![vec![piece(0, 40, 1.0), piece(40, 100, 2.0)]],
        };
        let d = WindowDensity::new(&s, 20);
        let w: Vec<f64> = s.pieces[0].iter().map(|p| d.weight(p)).collect();
        // 0–30: 1/2 of weight; 30–40 has 10/40 of the second window's half.
        assert!((w[0] - (0.5 + 0.5 * 10.0 / 40.0)).abs() < 1e-12, "{w:?}");
        assert!((w[0] + w[1] - 1.0).abs() < 1e-12);
    }
}

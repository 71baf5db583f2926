//! The statistics of a comparison: medians, robust spread, the
//! Mann–Whitney U test (exact without ties, normal approximation with tie
//! correction otherwise), Cliff's δ, Benjamini–Hochberg adjustment, and
//! the bootstrap that resamples whole runs with a seeded generator.

/// SplitMix64: small, fast and the same on every machine, so a comparison
/// gives the same intervals every time it runs.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform integer in `0..n` (Lemire's multiply-shift; the bias is below 2⁻³² for small `n`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// The median of `v` (the mean of the two middle values for an even
/// count); 0 for an empty slice. Reorders `v`.
pub fn median(v: &mut [f64]) -> f64 {
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    let (_, hi, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    let hi = *hi;
    if n % 2 == 1 {
        hi
    } else {
        let lo = v[..n / 2].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo + hi) / 2.0
    }
}

/// Robust coefficient of variation of several samples pooled: 1.4826 ×
/// the median of every value's relative deviation from its own sample's
/// median (for normal data, the standard deviation over the mean; one
/// outlier run does not throw it). Samples of fewer than two values or
/// with a zero median contribute nothing; 0 when none contributes.
pub fn pooled_robust_cv(samples: &[&[f64]]) -> f64 {
    let mut dev = Vec::new();
    for s in samples {
        if s.len() < 2 {
            continue;
        }
        let m = median(&mut s.to_vec());
        if m == 0.0 {
            continue;
        }
        dev.extend(s.iter().map(|x| ((x - m) / m).abs()));
    }
    1.4826 * median(&mut dev)
}

/// The Mann–Whitney statistic of `b` against `a`: pairs with `b > a`, plus
/// half of the tied pairs; and Cliff's δ = (#(b>a) − #(b<a)) / (na·nb).
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> (f64, f64) {
    let (mut gt, mut lt) = (0u64, 0u64);
    for &y in b {
        for &x in a {
            if y > x {
                gt += 1;
            } else if y < x {
                lt += 1;
            }
        }
    }
    let pairs = (a.len() * b.len()) as f64;
    let ties = pairs - (gt + lt) as f64;
    let u = gt as f64 + ties / 2.0;
    let delta = if pairs == 0.0 {
        0.0
    } else {
        (gt as f64 - lt as f64) / pairs
    };
    (u, delta)
}

/// Largest `na·nb` for which [`MannWhitney`] computes the exact null
/// distribution (its table costs `na·nb·(na·nb+1)` additions).
pub const EXACT_MAX_PAIRS: usize = 2500;

/// Two-sided Mann–Whitney p-values for one pair of sample sizes. The exact
/// null distribution (no ties) is computed once and reused for every row.
#[derive(Debug, Clone)]
pub struct MannWhitney {
    na: usize,
    nb: usize,
    /// P(U ≤ u) for u = 0..=na·nb, when exact.
    cdf: Option<Vec<f64>>,
}

impl MannWhitney {
    /// Prepares the test for samples of `na` and `nb` values.
    pub fn new(na: usize, nb: usize) -> MannWhitney {
        let pairs = na * nb;
        let cdf = (na > 0 && nb > 0 && pairs <= EXACT_MAX_PAIRS).then(|| {
            // counts[j][u]: orderings of i a-values and j b-values with
            // U = u, rolled over i.
            let mut counts: Vec<Vec<f64>> = (0..=nb).map(|_| vec![0.0; pairs + 1]).collect();
            for c in counts.iter_mut() {
                c[0] = 1.0; // i = 0: one ordering, U = 0
            }
            for i in 1..=na {
                let mut next: Vec<Vec<f64>> = (0..=nb).map(|_| vec![0.0; pairs + 1]).collect();
                next[0][0] = 1.0;
                for j in 1..=nb {
                    for u in 0..=pairs {
                        // The largest of the i + j values is either a b,
                        // which exceeds all i a-values (U + i), or an a (U + 0).
                        let from_b = if u >= i { next[j - 1][u - i] } else { 0.0 };
                        next[j][u] = from_b + counts[j][u];
                    }
                }
                counts = next;
            }
            let dist = &counts[nb];
            let total: f64 = dist.iter().sum();
            let mut acc = 0.0;
            dist.iter()
                .map(|c| {
                    acc += c;
                    acc / total
                })
                .collect()
        });
        MannWhitney { na, nb, cdf }
    }

    /// The smallest two-sided p-value these sample sizes can give.
    pub fn min_p(&self) -> f64 {
        match &self.cdf {
            Some(cdf) => (2.0 * cdf[0]).min(1.0),
            None if self.na == 0 || self.nb == 0 => 1.0,
            None => 0.0,
        }
    }

    /// The two-sided p-value of `b` against `a` (sizes as given to [`MannWhitney::new`]).
    pub fn p_value(&self, a: &[f64], b: &[f64], u: f64) -> f64 {
        let (na, nb) = (self.na as f64, self.nb as f64);
        if self.na == 0 || self.nb == 0 {
            return 1.0;
        }
        let has_ties = {
            let mut all: Vec<f64> = a.iter().chain(b).copied().collect();
            all.sort_by(f64::total_cmp);
            all.windows(2).any(|w| w[0] == w[1])
        };
        if let (Some(cdf), false) = (&self.cdf, has_ties) {
            let u = u.round() as usize;
            let lower = cdf[u];
            let upper = 1.0 - if u == 0 { 0.0 } else { cdf[u - 1] };
            return (2.0 * lower.min(upper)).min(1.0);
        }
        // Normal approximation with tie correction and continuity correction.
        let n = na + nb;
        let mut all: Vec<f64> = a.iter().chain(b).copied().collect();
        all.sort_by(f64::total_cmp);
        let mut tie_term = 0.0;
        let mut i = 0;
        while i < all.len() {
            let mut j = i + 1;
            while j < all.len() && all[j] == all[i] {
                j += 1;
            }
            let t = (j - i) as f64;
            tie_term += t * t * t - t;
            i = j;
        }
        let var = na * nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
        if var <= 0.0 {
            return 1.0; // every value equal
        }
        let mean = na * nb / 2.0;
        let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
        (2.0 * normal_sf(z)).min(1.0)
    }
}

/// Upper tail of the standard normal distribution, P(Z > z), for z ≥ 0
/// (Abramowitz–Stegun 7.1.26 on erfc; absolute error below 1.5e-7).
pub fn normal_sf(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    0.5 * poly * (-x * x).exp()
}

/// Benjamini–Hochberg adjusted p-values (q-values), in the order given:
/// q₍ᵢ₎ = min over j ≥ i of p₍ⱼ₎·m/j, capped at 1.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&x, &y| p[x].total_cmp(&p[y]));
    let mut q = vec![1.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(p[i] * m as f64 / (rank + 1) as f64);
        q[i] = running.min(1.0);
    }
    q
}

/// Whole-run resampling plans: for each resample, how many times each run
/// of a side is drawn. Shared by every row, so one resample always takes
/// the same runs for all rows.
#[derive(Debug, Clone)]
pub struct Resamples {
    /// `draws[r * n + i]`: times run `i` is drawn in resample `r`.
    draws: Vec<u8>,
    n: usize,
}

impl Resamples {
    /// `count` resamples of `n` runs drawn with replacement.
    pub fn new(rng: &mut Rng, n: usize, count: usize) -> Resamples {
        let mut draws = vec![0u8; n * count];
        for r in 0..count {
            for _ in 0..n {
                let i = rng.below(n);
                let d = &mut draws[r * n + i];
                *d = d.saturating_add(1);
            }
        }
        Resamples { draws, n }
    }

    /// Number of resamples.
    pub fn len(&self) -> usize {
        self.draws.len().checked_div(self.n).unwrap_or(0)
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The median of every resample of `values` (one value per run).
    /// Values are sorted once; each resample's median is found by walking
    /// the draw counts in value order, without sorting again.
    pub fn medians(&self, values: &[f64], out: &mut Vec<f64>) {
        out.clear();
        let n = self.n;
        debug_assert_eq!(values.len(), n);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&x, &y| values[x].total_cmp(&values[y]));
        for r in 0..self.len() {
            let d = &self.draws[r * n..(r + 1) * n];
            // Positions n/2 (and n/2 − 1 when n is even) of the sorted resample.
            let hi_pos = n / 2;
            let lo_pos = if n % 2 == 0 { hi_pos - 1 } else { hi_pos };
            let (mut lo, mut hi) = (None, None);
            let mut seen = 0usize;
            for &i in &order {
                seen += d[i] as usize;
                if lo.is_none() && seen > lo_pos {
                    lo = Some(values[i]);
                }
                if seen > hi_pos {
                    hi = Some(values[i]);
                    break;
                }
            }
            let (lo, hi) = (lo.unwrap_or(0.0), hi.unwrap_or(0.0));
            out.push((lo + hi) / 2.0);
        }
    }
}

/// The `q` quantile (0..=1) of sorted values, by linear interpolation.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let f = pos - lo as f64;
    if f == 0.0 || sorted[lo] == sorted[hi] {
        sorted[lo]
    } else {
        sorted[lo] + (sorted[hi] - sorted[lo]) * f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_spread() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
        // MAD of 1..=5 is 1, median 3.
        assert!((pooled_robust_cv(&[&[1.0, 2.0, 3.0, 4.0, 5.0]]) - 1.4826 / 3.0).abs() < 1e-12);
        assert_eq!(pooled_robust_cv(&[&[7.0]]), 0.0);
        // Relative deviations 0.1 (×2), 0 | 0.5 (×2), 0: median 0.1.
        let p = pooled_robust_cv(&[&[9.0, 10.0, 11.0], &[1.0, 2.0, 3.0], &[0.0, 0.0]]);
        assert!((p - 1.4826 * 0.1).abs() < 1e-12, "{p}");
    }

    #[test]
    fn exact_mann_whitney_matches_known_tables() {
        // Complete separation of 3 vs 3: P = 2 / C(6,3) = 0.1.
        let t = MannWhitney::new(3, 3);
        let (u, d) = mann_whitney_u(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]);
        assert_eq!((u, d), (9.0, 1.0));
        assert!((t.p_value(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], u) - 0.1).abs() < 1e-12);
        assert!((t.min_p() - 0.1).abs() < 1e-12);
        // 10 vs 10 fully separated: 2 / C(20,10).
        let t = MannWhitney::new(10, 10);
        assert!((t.min_p() - 2.0 / 184_756.0).abs() < 1e-15);
        // SciPy: mannwhitneyu([2,4,6,8,9], [1,3,5,7], method='exact') → U = 14, p = 0.41269841
        let a = [1.0, 3.0, 5.0, 7.0];
        let b = [2.0, 4.0, 6.0, 8.0, 9.0];
        let (u, _) = mann_whitney_u(&a, &b);
        assert_eq!(u, 14.0);
        let p = MannWhitney::new(4, 5).p_value(&a, &b, u);
        assert!((p - 0.412_698_412_698_412_7).abs() < 1e-9, "{p}");
        // Symmetric: swapping sides gives the same p.
        let (u2, _) = mann_whitney_u(&b, &a);
        assert!((MannWhitney::new(5, 4).p_value(&b, &a, u2) - p).abs() < 1e-12);
    }

    #[test]
    fn ties_use_the_corrected_normal_approximation() {
        // SciPy 1.x: mannwhitneyu([2,3,3,4], [1,2,2,3], method='asymptotic',
        // use_continuity=True) → U = 13, p = 0.1720337089
        let a = [1.0, 2.0, 2.0, 3.0];
        let b = [2.0, 3.0, 3.0, 4.0];
        let (u, _) = mann_whitney_u(&a, &b);
        assert_eq!(u, 13.0);
        let p = MannWhitney::new(4, 4).p_value(&a, &b, u);
        assert!((p - 0.172_033_708_9).abs() < 1e-6, "{p}");
        assert_eq!(MannWhitney::new(3, 3).p_value(&[1.0; 3], &[1.0; 3], 4.5), 1.0);
    }

    #[test]
    fn normal_tail() {
        assert!((normal_sf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_sf(1.959_964) - 0.025).abs() < 1e-6);
        assert!((normal_sf(3.0) - 0.001_349_898).abs() < 1e-7);
    }

    #[test]
    fn benjamini_hochberg_matches_the_step_up_rule() {
        // SciPy: false_discovery_control([0.01, 0.04, 0.03, 0.2]) → 0.04 0.0533 0.0533 0.2
        let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.2]);
        let want = [0.04, 0.053_333_333, 0.053_333_333, 0.2];
        for (a, b) in q.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{q:?}");
        }
        assert!(benjamini_hochberg(&[]).is_empty());
    }

    #[test]
    fn resampled_medians_equal_sorting_each_resample() {
        let mut rng = Rng::new(7);
        for n in [1usize, 2, 5, 10] {
            let plans = Resamples::new(&mut rng, n, 200);
            let values: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64 + 0.5).collect();
            let mut got = Vec::new();
            plans.medians(&values, &mut got);
            for (r, m) in got.iter().enumerate() {
                let mut sample = Vec::new();
                for (i, &v) in values.iter().enumerate() {
                    for _ in 0..plans.draws[r * n + i] {
                        sample.push(v);
                    }
                }
                assert_eq!(sample.len(), n);
                assert_eq!(*m, median(&mut sample));
            }
        }
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile_sorted(&v, 0.5), 3.0);
        assert_eq!(quantile_sorted(&v, 0.25), 2.0);
        assert!((quantile_sorted(&v, 0.1) - 1.4).abs() < 1e-12);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Two-sided p-value by enumerating every split of the pooled values
    /// into groups of the two sizes (the permutation distribution of U).
    fn brute_force_p(a: &[f64], b: &[f64]) -> f64 {
        let all: Vec<f64> = a.iter().chain(b).copied().collect();
        let (n, na) = (all.len(), a.len());
        let (u_obs, _) = mann_whitney_u(a, b);
        let mean = (a.len() * b.len()) as f64 / 2.0;
        let (mut extreme, mut total) = (0u64, 0u64);
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize != na {
                continue;
            }
            let (mut xa, mut xb) = (Vec::new(), Vec::new());
            for (i, &v) in all.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    xa.push(v);
                } else {
                    xb.push(v);
                }
            }
            let (u, _) = mann_whitney_u(&xa, &xb);
            total += 1;
            if (u - mean).abs() >= (u_obs - mean).abs() - 1e-9 {
                extreme += 1;
            }
        }
        extreme as f64 / total as f64
    }

    proptest! {
        #[test]
        fn exact_p_values_equal_the_permutation_distribution(
            values in proptest::collection::btree_set(0u32..10_000, 2..=11),
            split in 1usize..10,
        ) {
            // Distinct values (the exact test assumes no ties), split in two.
            let v: Vec<f64> = values.into_iter().map(f64::from).collect();
            let na = split.min(v.len() - 1);
            let mut shuffled = v.clone();
            shuffled.rotate_left(na / 2);
            let (a, b) = shuffled.split_at(na);
            let (u, _) = mann_whitney_u(a, b);
            let p = MannWhitney::new(a.len(), b.len()).p_value(a, b, u);
            // The U distribution is symmetric, so "at least as far from the
            // mean" is twice the smaller tail.
            prop_assert!((p - brute_force_p(a, b)).abs() < 1e-9, "{p} vs {}", brute_force_p(a, b));
        }

        #[test]
        fn adjusted_p_values_keep_the_order_and_never_shrink(p in proptest::collection::vec(0.0f64..=1.0, 0..40)) {
            let q = benjamini_hochberg(&p);
            for i in 0..p.len() {
                prop_assert!(q[i] >= p[i] - 1e-15 && q[i] <= 1.0);
                for j in 0..p.len() {
                    if p[i] < p[j] {
                        prop_assert!(q[i] <= q[j] + 1e-15);
                    }
                }
            }
        }
    }
}

//! The two shapes an energy source takes, each with O(log n) window
//! queries whose answers add up exactly over adjacent windows:
//!
//! - [`Rate`]: samples of a rate (power in W, current in A), integrated by
//!   trapezoid (linear between samples), left-hold (each value held until
//!   the next sample) or right-hold (each value held back to the previous
//!   sample). Prefix integrals at every sample make any window's integral
//!   the difference of two cumulative values, the part of an interval
//!   inside the window being integrated exactly under the same rule
//!   (interpolated value at the edge for trapezoid, the held value for the
//!   holds).
//! - [`Total`]: a running total (an unwrapped energy counter, J), linear
//!   between samples, with the two step readings (the increment counted at
//!   the start or at the end of its interval) as its bounds.

/// How samples of a rate are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Linear between samples.
    Trapezoid,
    /// Each sample holds until the next.
    LeftHold,
    /// Each sample holds back to the previous one.
    RightHold,
}

/// Cumulative integrals at one instant under the three rules.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cum {
    /// Trapezoid.
    pub trapezoid: f64,
    /// Left-hold.
    pub left: f64,
    /// Right-hold.
    pub right: f64,
}

impl Cum {
    /// The integral under one rule.
    pub fn get(&self, rule: Rule) -> f64 {
        match rule {
            Rule::Trapezoid => self.trapezoid,
            Rule::LeftHold => self.left,
            Rule::RightHold => self.right,
        }
    }

    /// `self − earlier`, rule by rule.
    pub fn minus(&self, earlier: &Cum) -> Cum {
        Cum {
            trapezoid: self.trapezoid - earlier.trapezoid,
            left: self.left - earlier.left,
            right: self.right - earlier.right,
        }
    }
}

/// The last index `k` with `time(k) <= t`, for `time(0) <= t < time(n-1)`.
///
/// The search starts where `t` would fall if the samples were evenly
/// spaced and gallops from there, so a regularly sampled track costs one or
/// two probes (a plain binary search over a long capture misses the cache
/// at every step) and an irregular one O(log distance).
fn last_at_or_before<T>(recs: &[T], time: impl Fn(&T) -> i64, t: i64) -> usize {
    let n = recs.len();
    let (t0, t1) = (time(&recs[0]), time(&recs[n - 1]));
    let guess = (t as i128 - t0 as i128) * (n as i128 - 1) / (t1 as i128 - t0 as i128);
    let g = (guess as usize).min(n - 2);
    let (mut lo, mut hi);
    if time(&recs[g]) <= t {
        lo = g;
        let mut step = 1;
        loop {
            let probe = lo + step;
            if probe >= n - 1 {
                hi = n - 1;
                break;
            }
            if time(&recs[probe]) > t {
                hi = probe;
                break;
            }
            lo = probe;
            step *= 2;
        }
    } else {
        hi = g;
        let mut step = 1;
        loop {
            if step >= hi {
                lo = 0;
                break;
            }
            let probe = hi - step;
            if time(&recs[probe]) <= t {
                lo = probe;
                break;
            }
            hi = probe;
            step *= 2;
        }
    }
    // time(lo) <= t < time(hi)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if time(&recs[mid]) <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Seconds in `ns` nanoseconds.
pub fn secs(ns: i64) -> f64 {
    ns as f64 * 1e-9
}

/// `later − earlier` in ns as a float, without overflow.
fn gap(later: i64, earlier: i64) -> f64 {
    (later as i128 - earlier as i128) as f64
}

/// One sample of a rate and the integrals up to it, kept together so a
/// lookup touches one or two cache lines.
#[derive(Debug, Clone, Copy)]
struct RateSample {
    t: i64,
    v: f64,
    cum: Cum,
}

/// Samples of a rate with prefix integrals (value × seconds).
#[derive(Debug, Clone)]
pub struct Rate {
    recs: Vec<RateSample>,
}

impl Rate {
    /// Builds the prefix integrals. `times` must not decrease and have the
    /// same length as `values`.
    pub fn new(times: Vec<i64>, values: Vec<f64>) -> Rate {
        assert_eq!(times.len(), values.len());
        let mut recs = Vec::with_capacity(times.len());
        let mut acc = Cum::default();
        for k in 0..times.len() {
            if k > 0 {
                let dt = gap(times[k], times[k - 1]) * 1e-9;
                acc.trapezoid += dt * 0.5 * (values[k - 1] + values[k]);
                acc.left += dt * values[k - 1];
                acc.right += dt * values[k];
            }
            recs.push(RateSample {
                t: times[k],
                v: values[k],
                cum: acc,
            });
        }
        Rate { recs }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// True without samples.
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    /// First and last sample time, if any.
    pub fn span(&self) -> Option<(i64, i64)> {
        Some((self.recs.first()?.t, self.recs.last()?.t))
    }

    /// Cumulative integrals from the first sample to `t` (constant before
    /// the first and after the last sample: no data, no energy).
    pub fn at(&self, t: i64) -> Cum {
        let n = self.recs.len();
        if n == 0 || t <= self.recs[0].t {
            return Cum::default();
        }
        if t >= self.recs[n - 1].t {
            return self.recs[n - 1].cum;
        }
        let k = last_at_or_before(&self.recs, |r| r.t, t);
        let (r0, r1) = (&self.recs[k], &self.recs[k + 1]);
        let dt = gap(t, r0.t) * 1e-9;
        let vt = r0.v + (r1.v - r0.v) * (gap(t, r0.t) / gap(r1.t, r0.t));
        Cum {
            trapezoid: r0.cum.trapezoid + dt * 0.5 * (r0.v + vt),
            left: r0.cum.left + dt * r0.v,
            right: r0.cum.right + dt * r1.v,
        }
    }

    /// Every sample as `(time ns, value)`, in time order.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = (i64, f64)> + '_ {
        self.recs.iter().map(|r| (r.t, r.v))
    }

    /// The last sample's value (the rate beyond the data, if held).
    pub fn last_value(&self) -> f64 {
        self.recs.last().map_or(0.0, |r| r.v)
    }

    /// Integrals over `[a, b]`.
    pub fn between(&self, a: i64, b: i64) -> Cum {
        self.at(b).minus(&self.at(a))
    }

    /// Integral over `[a, b]` under one rule (the fast path).
    pub fn integral(&self, a: i64, b: i64, rule: Rule) -> f64 {
        self.at(b).get(rule) - self.at(a).get(rule)
    }
}

/// A running total sampled now and then (already unwrapped), read linearly
/// between samples.
#[derive(Debug, Clone)]
pub struct Total {
    recs: Vec<(i64, f64)>,
}

/// A running total at one instant: linear, and the two step readings.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TotalAt {
    /// Linear between samples.
    pub linear: f64,
    /// The increment counted at the start of its interval (the larger reading).
    pub early: f64,
    /// The increment counted at the end of its interval (the smaller reading).
    pub late: f64,
}

impl Total {
    /// A total from non-decreasing `times`; values start wherever they start.
    pub fn new(times: Vec<i64>, values: Vec<f64>) -> Total {
        assert_eq!(times.len(), values.len());
        Total {
            recs: times.into_iter().zip(values).collect(),
        }
    }

    /// First and last sample time, if any.
    pub fn span(&self) -> Option<(i64, i64)> {
        Some((self.recs.first()?.0, self.recs.last()?.0))
    }

    /// Every sample as `(time ns, total)`, in time order.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = (i64, f64)> + '_ {
        self.recs.iter().copied()
    }

    /// The rate of the last interval, per second (the rate beyond the data).
    pub fn last_rate(&self) -> f64 {
        let n = self.recs.len();
        if n < 2 || self.recs[n - 1].0 == self.recs[n - 2].0 {
            return 0.0;
        }
        (self.recs[n - 1].1 - self.recs[n - 2].1) / (gap(self.recs[n - 1].0, self.recs[n - 2].0) * 1e-9)
    }

    /// The total at `t`, relative to its first sample.
    pub fn at(&self, t: i64) -> TotalAt {
        let n = self.recs.len();
        if n == 0 || t <= self.recs[0].0 {
            return TotalAt::default();
        }
        let base = self.recs[0].1;
        if t >= self.recs[n - 1].0 {
            let v = self.recs[n - 1].1 - base;
            return TotalAt {
                linear: v,
                early: v,
                late: v,
            };
        }
        let k = last_at_or_before(&self.recs, |r| r.0, t);
        let ((t0, v0), (t1, v1)) = (self.recs[k], self.recs[k + 1]);
        let (v0, v1) = (v0 - base, v1 - base);
        TotalAt {
            linear: v0 + (v1 - v0) * (gap(t, t0) / gap(t1, t0)),
            early: if t > t0 { v1 } else { v0 },
            late: v0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_on_a_ramp() {
        // v = t (s) sampled at 0, 1, 2 s.
        let r = Rate::new(vec![0, 1_000_000_000, 2_000_000_000], vec![0.0, 1.0, 2.0]);
        let c = r.between(0, 2_000_000_000);
        assert_eq!((c.trapezoid, c.left, c.right), (2.0, 1.0, 3.0));
        // Inside an interval: ∫_0.5^1.5 t dt = 1 exactly by trapezoid.
        let c = r.between(500_000_000, 1_500_000_000);
        assert!((c.trapezoid - 1.0).abs() < 1e-12);
        assert!((c.left - 0.5).abs() < 1e-12);
        assert!((c.right - 1.5).abs() < 1e-12);
        // Outside the data: nothing.
        assert_eq!(r.integral(-5, 0, Rule::Trapezoid), 0.0);
        assert_eq!(r.integral(3_000_000_000, 4_000_000_000, Rule::LeftHold), 0.0);
    }

    #[test]
    fn adjacent_windows_add_up() {
        let times: Vec<i64> = (0..50).map(|k| k * 37_000_000 + (k % 3) * 5_000_000).collect();
        let values: Vec<f64> = (0..50).map(|k| (k as f64 * 0.7).sin() + 2.0).collect();
        let r = Rate::new(times, values);
        for rule in [Rule::Trapezoid, Rule::LeftHold, Rule::RightHold] {
            let whole = r.integral(-1_000_000, 2_000_000_000, rule);
            let mut sum = 0.0;
            let mut a = -1_000_000;
            while a < 2_000_000_000 {
                let b = (a + 13_333_333).min(2_000_000_000);
                sum += r.integral(a, b, rule);
                a = b;
            }
            assert!(
                (sum - whole).abs() < 1e-12 * whole.abs().max(1.0),
                "{rule:?}: {sum} vs {whole}"
            );
        }
    }

    #[test]
    fn search_agrees_with_binary_search() {
        let cases: Vec<Vec<i64>> = vec![
            vec![0, 0, 3, 3, 3, 10, 11, 40, 41, 41, 1000],
            (0..100).map(|k| k * k * k).collect(),
            vec![0, 999, 1000],
        ];
        for times in cases {
            let last = *times.last().unwrap();
            for t in times[0]..last {
                let want = times.partition_point(|&x| x <= t) - 1;
                assert_eq!(last_at_or_before(&times, |&x| x, t), want, "t = {t} in {times:?}");
            }
        }
        let wide = [i64::MIN / 2, 0, i64::MAX / 2];
        for t in [i64::MIN / 2, -1, 0, 1, i64::MAX / 2 - 1] {
            assert_eq!(
                last_at_or_before(&wide, |&x| x, t),
                wide.partition_point(|&x| x <= t) - 1
            );
        }
    }

    #[test]
    fn totals_interpolate_and_step() {
        let t = Total::new(vec![0, 10, 20], vec![100.0, 110.0, 130.0]);
        assert_eq!(
            t.at(5),
            TotalAt {
                linear: 5.0,
                early: 10.0,
                late: 0.0
            }
        );
        assert_eq!(t.at(10).linear, 10.0);
        assert_eq!(t.at(25).linear, 30.0);
        assert_eq!(t.at(-3), TotalAt::default());
    }
}

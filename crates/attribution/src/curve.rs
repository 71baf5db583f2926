//! The measured power split, instant by instant, into a *base* part (up to
//! the base power `B`) and an *excess* part (above it), with running
//! integrals of both so that any interval's energies are two lookups.
//!
//! `base(t) = min(P(t), B)` and `excess(t) = max(P(t) − B, 0)`, so the two
//! add up to `P(t)` at every instant and their integrals to the measured
//! energy. Between samples `P` follows the energy analysis' rule (linear
//! for trapezoid, held for left-hold); a linear piece that crosses `B` is
//! split at the exact crossing.

use tracekit_energy::curve::Rule;
use tracekit_energy::PowerSamples;

/// One sample with the integrals up to it and the shape of the piece
/// that starts at it.
#[derive(Debug, Clone, Copy)]
struct Knot {
    t: i64,
    p: f64,
    /// ∫ base and ∫ excess from the first knot to this one, J.
    base: f64,
    excess: f64,
    /// Slope of the piece to the next knot, W/s (0 when held).
    slope: f64,
    /// The piece to the next knot lies wholly at or above the base (1),
    /// wholly at or below it (0), or crosses it (2).
    side: u8,
}

/// The split curve, ready for cursor queries.
#[derive(Debug, Clone)]
pub struct SplitCurve {
    knots: Vec<Knot>,
    base_w: f64,
    hold: bool,
}

/// Cumulative base and excess energy at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cum {
    /// ∫ base, J.
    pub base: f64,
    /// ∫ excess, J.
    pub excess: f64,
}

fn secs(ns: i64) -> f64 {
    ns as f64 * 1e-9
}

/// ∫ over `[0, dt]` s of the base and excess parts of a piece that starts
/// at `p0` and moves linearly to `p1` over `len` s (held at `p0` when
/// `hold`). A piece crossing the base is split at the exact crossing.
fn piece(p0: f64, p1: f64, len: f64, dt: f64, b: f64, hold: bool) -> (f64, f64) {
    if dt <= 0.0 {
        return (0.0, 0.0);
    }
    if hold || len <= 0.0 {
        return (p0.min(b) * dt, (p0 - b).max(0.0) * dt);
    }
    let pt = if dt >= len { p1 } else { p0 + (p1 - p0) * (dt / len) };
    let total = dt * 0.5 * (p0 + pt);
    let (d0, d1) = (p0 - b, pt - b);
    let excess = if d0 >= 0.0 && d1 >= 0.0 {
        dt * 0.5 * (d0 + d1)
    } else if d0 <= 0.0 && d1 <= 0.0 {
        0.0
    } else {
        let sc = dt * d0 / (d0 - d1);
        if d0 > 0.0 {
            0.5 * sc * d0
        } else {
            0.5 * (dt - sc) * d1
        }
    };
    (total - excess, excess)
}

impl SplitCurve {
    /// Splits `power` at `base_w`.
    pub fn new(power: &PowerSamples, base_w: f64) -> SplitCurve {
        let hold = power.rule != Rule::Trapezoid;
        let mut knots = Vec::with_capacity(power.times.len());
        let (mut b, mut x) = (0.0, 0.0);
        for k in 0..power.times.len() {
            if k > 0 {
                let (t0, p0) = (power.times[k - 1], power.watts[k - 1]);
                let (t1, p1) = (power.times[k], power.watts[k]);
                let len = secs(t1 - t0);
                let (db, dx) = piece(p0, p1, len, len, base_w, hold);
                b += db;
                x += dx;
            }
            knots.push(Knot {
                t: power.times[k],
                p: power.watts[k],
                base: b,
                excess: x,
                slope: 0.0,
                side: 0,
            });
        }
        for k in 0..knots.len() {
            let p0 = knots[k].p;
            let (p1, len) = match knots.get(k + 1) {
                Some(n) => (n.p, secs(n.t - knots[k].t)),
                None => (p0, 0.0),
            };
            let p1 = if hold { p0 } else { p1 };
            knots[k].slope = if len > 0.0 { (p1 - p0) / len } else { 0.0 };
            knots[k].side = if p0 >= base_w && p1 >= base_w {
                1
            } else if p0 <= base_w && p1 <= base_w {
                0
            } else {
                2
            };
        }
        SplitCurve { knots, base_w, hold }
    }

    /// The base power, W.
    pub fn base_w(&self) -> f64 {
        self.base_w
    }

    /// First and last sample time.
    pub fn span(&self) -> Option<(i64, i64)> {
        Some((self.knots.first()?.t, self.knots.last()?.t))
    }

    /// A cursor for queries at non-decreasing times.
    pub fn cursor(&self) -> CurveCursor<'_> {
        CurveCursor { c: self, k: 0 }
    }

    #[inline]
    fn at_index(&self, k: usize, t: i64) -> Cum {
        // knots[k].t <= t < knots[k+1].t
        let a = &self.knots[k];
        let dt = secs(t - a.t);
        match a.side {
            // Wholly above or below the base: no crossing to find.
            1 => {
                let mean = a.p + 0.5 * a.slope * dt;
                Cum {
                    base: a.base + self.base_w * dt,
                    excess: a.excess + (mean - self.base_w) * dt,
                }
            }
            0 => Cum {
                base: a.base + (a.p + 0.5 * a.slope * dt) * dt,
                excess: a.excess,
            },
            _ => {
                let b = &self.knots[k + 1];
                let (db, dx) = piece(a.p, b.p, secs(b.t - a.t), dt, self.base_w, self.hold);
                Cum {
                    base: a.base + db,
                    excess: a.excess + dx,
                }
            }
        }
    }

    /// Cumulative energies at `t` (a binary search).
    pub fn at(&self, t: i64) -> Cum {
        let n = self.knots.len();
        if n == 0 || t <= self.knots[0].t {
            return Cum::default();
        }
        if t >= self.knots[n - 1].t {
            let l = &self.knots[n - 1];
            return Cum {
                base: l.base,
                excess: l.excess,
            };
        }
        let k = self.knots.partition_point(|x| x.t <= t) - 1;
        self.at_index(k, t)
    }
}

/// Cumulative energies at non-decreasing times in amortised O(1).
#[derive(Debug, Clone)]
pub struct CurveCursor<'a> {
    c: &'a SplitCurve,
    k: usize,
}

impl CurveCursor<'_> {
    /// Cumulative energies at `t` (`t` must not decrease between calls).
    #[inline]
    pub fn at(&mut self, t: i64) -> Cum {
        let kn = &self.c.knots;
        let n = kn.len();
        if n == 0 || t <= kn[0].t {
            return Cum::default();
        }
        if t >= kn[n - 1].t {
            return Cum {
                base: kn[n - 1].base,
                excess: kn[n - 1].excess,
            };
        }
        while kn[self.k + 1].t <= t {
            self.k += 1;
        }
        self.c.at_index(self.k, t)
    }
}

/// The `q`-quantile (0–1) of the power over the samples' span, each
/// sample weighted by the time it stands for (half of each neighbouring
/// interval).
pub fn time_weighted_quantile(power: &PowerSamples, q: f64) -> Option<f64> {
    let n = power.times.len();
    if n == 0 {
        return None;
    }
    let mut w: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let lo = if k > 0 { power.times[k - 1] } else { power.times[k] };
            let hi = if k + 1 < n { power.times[k + 1] } else { power.times[k] };
            (power.watts[k], ((hi - lo) as f64).max(0.0) / 2.0)
        })
        .collect();
    let total: f64 = w.iter().map(|x| x.1).sum();
    w.sort_by(|a, b| a.0.total_cmp(&b.0));
    if total <= 0.0 {
        return Some(w[((n - 1) as f64 * q) as usize].0);
    }
    let mut acc = 0.0;
    for (v, wt) in &w {
        acc += wt;
        if acc >= q * total {
            return Some(*v);
        }
    }
    w.last().map(|x| x.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(times: &[i64], watts: &[f64], rule: Rule) -> PowerSamples {
        PowerSamples {
            times: times.to_vec(),
            watts: watts.to_vec(),
            rule,
        }
    }

    #[test]
    fn parts_add_up_to_the_measurement() {
        const S: i64 = 1_000_000_000;
        // 0 → 4 W over 2 s with a base of 1 W: crosses at 0.5 s.
        let p = samples(&[0, 2 * S], &[0.0, 4.0], Rule::Trapezoid);
        let c = SplitCurve::new(&p, 1.0);
        let end = c.at(2 * S);
        assert!((end.base + end.excess - 4.0).abs() < 1e-12);
        // Base: ∫0..0.5 of 2t = 0.25, then 1 W × 1.5 s.
        assert!((end.base - 1.75).abs() < 1e-12, "{end:?}");
        let mut cur = c.cursor();
        let mid = cur.at(S);
        assert!((mid.base + mid.excess - 1.0).abs() < 1e-12);
        assert_eq!(cur.at(3 * S), end);
        let hold = SplitCurve::new(&samples(&[0, S, 2 * S], &[3.0, 0.5, 9.0], Rule::LeftHold), 1.0);
        let e = hold.at(2 * S);
        assert!((e.base - 1.5).abs() < 1e-12 && (e.excess - 2.0).abs() < 1e-12, "{e:?}");
        assert_eq!(hold.at(-5), Cum::default());
    }

    #[test]
    fn quantiles_weigh_by_time() {
        let p = samples(&[0, 10, 20, 1000], &[5.0, 1.0, 2.0, 3.0], Rule::Trapezoid);
        assert_eq!(time_weighted_quantile(&p, 0.0), Some(1.0));
        // The last two samples stand for most of the time.
        assert_eq!(time_weighted_quantile(&p, 0.5), Some(2.0));
        assert_eq!(time_weighted_quantile(&p, 1.0), Some(5.0));
    }
}

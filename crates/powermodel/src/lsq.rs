//! Ordinary least squares by the normal equations: rows are accumulated
//! into XᵀX and Xᵀy in one pass (memory independent of the number of
//! rows), columns are scaled to unit root-mean-square before a Cholesky
//! factorisation, and a column whose pivot vanishes (constant where the
//! intercept already is, or a combination of others) is dropped and
//! reported rather than given an arbitrary coefficient.

/// XᵀX and Xᵀy of the rows seen so far.
#[derive(Debug, Clone)]
pub struct Normal {
    p: usize,
    xtx: Vec<f64>,
    xty: Vec<f64>,
    yty: f64,
    n: usize,
}

/// A solved least-squares problem.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// One coefficient per column (0 for dropped columns).
    pub beta: Vec<f64>,
    /// Standard error of each coefficient (0 for dropped columns).
    pub std_error: Vec<f64>,
    /// Columns left out because they add nothing the others do not.
    pub dropped: Vec<usize>,
    /// Residual sum of squares.
    pub rss: f64,
    /// Rows used.
    pub n: usize,
}

/// Relative pivot below which a column counts as collinear.
const PIVOT_TOLERANCE: f64 = 1e-9;

impl Normal {
    /// An empty accumulator for `p` columns.
    pub fn new(p: usize) -> Normal {
        Normal {
            p,
            xtx: vec![0.0; p * p],
            xty: vec![0.0; p],
            yty: 0.0,
            n: 0,
        }
    }

    /// Adds one row.
    #[inline]
    pub fn add(&mut self, x: &[f64], y: f64) {
        let p = self.p;
        for i in 0..p {
            let xi = x[i];
            if xi == 0.0 {
                continue;
            }
            self.xty[i] += xi * y;
            let row = &mut self.xtx[i * p..i * p + p];
            for j in i..p {
                row[j] += xi * x[j];
            }
        }
        self.yty += y * y;
        self.n += 1;
    }

    /// Adds another accumulator's rows.
    pub fn merge(&mut self, o: &Normal) {
        for (a, b) in self.xtx.iter_mut().zip(&o.xtx) {
            *a += b;
        }
        for (a, b) in self.xty.iter_mut().zip(&o.xty) {
            *a += b;
        }
        self.yty += o.yty;
        self.n += o.n;
    }

    /// Rows added.
    pub fn rows(&self) -> usize {
        self.n
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        if i <= j {
            self.xtx[i * self.p + j]
        } else {
            self.xtx[j * self.p + i]
        }
    }

    /// Solves, dropping collinear columns (in the order given, later ones first).
    pub fn solve(&self) -> Option<Solution> {
        let p = self.p;
        if self.n == 0 {
            return None;
        }
        let scale: Vec<f64> = (0..p).map(|i| (self.at(i, i) / self.n as f64).sqrt()).collect();
        let mut keep: Vec<usize> = (0..p).filter(|&i| scale[i] > 0.0).collect();
        let mut dropped: Vec<usize> = (0..p).filter(|&i| scale[i] <= 0.0).collect();
        loop {
            let m = keep.len();
            // Scaled Gram matrix of the kept columns.
            let mut a = vec![0.0; m * m];
            let mut b = vec![0.0; m];
            for (r, &i) in keep.iter().enumerate() {
                b[r] = self.xty[i] / scale[i] / self.n as f64;
                for (c, &j) in keep.iter().enumerate() {
                    a[r * m + c] = self.at(i, j) / (scale[i] * scale[j]) / self.n as f64;
                }
            }
            match cholesky(&mut a, m) {
                Ok(()) => {
                    let z = solve_cholesky(&a, m, &b);
                    let mut beta = vec![0.0; p];
                    for (r, &i) in keep.iter().enumerate() {
                        beta[i] = z[r] / scale[i];
                    }
                    // RSS = yᵀy − 2βᵀXᵀy + βᵀXᵀXβ.
                    let mut rss = self.yty;
                    for &i in &keep {
                        rss -= 2.0 * beta[i] * self.xty[i];
                        for &j in &keep {
                            rss += beta[i] * self.at(i, j) * beta[j];
                        }
                    }
                    let rss = rss.max(0.0);
                    let dof = self.n.saturating_sub(m).max(1) as f64;
                    let sigma2 = rss / dof;
                    let mut std_error = vec![0.0; p];
                    for (r, &i) in keep.iter().enumerate() {
                        let mut e = vec![0.0; m];
                        e[r] = 1.0;
                        let inv = solve_cholesky(&a, m, &e)[r];
                        std_error[i] = (sigma2 * inv / self.n as f64).sqrt() / scale[i];
                    }
                    dropped.sort_unstable();
                    return Some(Solution {
                        beta,
                        std_error,
                        dropped,
                        rss,
                        n: self.n,
                    });
                }
                Err(bad) => {
                    dropped.push(keep.remove(bad));
                    if keep.is_empty() {
                        return None;
                    }
                }
            }
        }
    }
}

/// In-place lower Cholesky factor of the `m`×`m` matrix `a`; on a vanishing
/// pivot, the index of its column.
fn cholesky(a: &mut [f64], m: usize) -> Result<(), usize> {
    for j in 0..m {
        let mut d = a[j * m + j];
        for k in 0..j {
            d -= a[j * m + k] * a[j * m + k];
        }
        if d <= PIVOT_TOLERANCE * a[j * m + j].abs().max(1e-300) || d <= 0.0 {
            return Err(j);
        }
        let d = d.sqrt();
        a[j * m + j] = d;
        for i in j + 1..m {
            let mut s = a[i * m + j];
            for k in 0..j {
                s -= a[i * m + k] * a[j * m + k];
            }
            a[i * m + j] = s / d;
        }
    }
    Ok(())
}

/// Solves L Lᵀ z = b with the factor from [`cholesky`].
fn solve_cholesky(l: &[f64], m: usize, b: &[f64]) -> Vec<f64> {
    let mut y = b.to_vec();
    for i in 0..m {
        for k in 0..i {
            y[i] -= l[i * m + k] * y[k];
        }
        y[i] /= l[i * m + i];
    }
    for i in (0..m).rev() {
        for k in i + 1..m {
            y[i] -= l[k * m + i] * y[k];
        }
        y[i] /= l[i * m + i];
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_fit_and_collinear_columns() {
        // y = 2 + 3a − b, with a duplicate of a and a constant zero column.
        let mut n = Normal::new(5);
        for k in 0..50 {
            let a = (k as f64 * 0.37).sin();
            let b = (k as f64 * 0.11).cos() * 4.0;
            n.add(&[1.0, a, b, 2.0 * a, 0.0], 2.0 + 3.0 * a - b);
        }
        let s = n.solve().unwrap();
        assert_eq!(s.dropped, vec![3, 4]);
        assert!((s.beta[0] - 2.0).abs() < 1e-9);
        assert!((s.beta[1] - 3.0).abs() < 1e-9, "{:?}", s.beta);
        assert!((s.beta[2] + 1.0).abs() < 1e-9);
        assert!(s.rss < 1e-12);
        assert!(Normal::new(2).solve().is_none());
    }

    #[test]
    fn merged_halves_equal_the_whole() {
        let (mut a, mut b, mut all) = (Normal::new(2), Normal::new(2), Normal::new(2));
        for k in 0..100 {
            let x = [1.0, k as f64];
            let y = 1.0 + 0.5 * k as f64 + if k % 2 == 0 { 0.1 } else { -0.1 };
            all.add(&x, y);
            if k < 50 { &mut a } else { &mut b }.add(&x, y);
        }
        a.merge(&b);
        let (s1, s2) = (a.solve().unwrap(), all.solve().unwrap());
        assert!((s1.beta[1] - s2.beta[1]).abs() < 1e-12);
        assert!(s2.std_error[1] > 0.0 && s2.std_error[1] < 0.01);
    }
}

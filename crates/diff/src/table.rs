//! The runs of both sides merged into one table: every key any run has,
//! matched by frame names, with one value per run and metric.

use crate::metric::Metric;
use crate::run::RunData;
use rustc_hash::FxHashMap;

/// Rows × runs, per metric. Runs of A come first, then B's.
pub(crate) struct Table {
    pub metrics: Vec<Metric>,
    pub frames: Vec<String>,
    pub keys: Vec<Vec<u32>>,
    pub na: usize,
    pub nb: usize,
    /// Per metric: `values[m][row * runs + run]` (0 when the run lacks the row).
    values: Vec<Vec<f64>>,
    /// `present[row * runs + run]`: the run has the row.
    present: Vec<bool>,
    /// Per metric and run: the run's total ([`RunData::total`]).
    totals: Vec<Vec<f64>>,
}

impl Table {
    /// Merges the runs; every run must have every metric (checked before).
    pub fn build(a: &[RunData], b: &[RunData], metrics: &[Metric]) -> Table {
        let runs: Vec<&RunData> = a.iter().chain(b).collect();
        let n = runs.len();
        let mut t = Table {
            metrics: metrics.to_vec(),
            frames: Vec::new(),
            keys: Vec::new(),
            na: a.len(),
            nb: b.len(),
            values: vec![Vec::new(); metrics.len()],
            present: Vec::new(),
            totals: vec![vec![0.0; n]; metrics.len()],
        };
        let mut frame_ids: FxHashMap<&str, u32> = FxHashMap::default();
        let mut key_ids: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
        let mut global = Vec::new();
        for (r, run) in runs.iter().enumerate() {
            let local: Vec<u32> = run
                .frames()
                .iter()
                .map(|f| {
                    *frame_ids.entry(f.as_str()).or_insert_with(|| {
                        t.frames.push(f.clone());
                        t.frames.len() as u32 - 1
                    })
                })
                .collect();
            let cols: Vec<usize> = metrics.iter().map(|&m| run.metric_index(m).unwrap_or(0)).collect();
            for (key, vals) in run.rows() {
                global.clear();
                global.extend(key.iter().map(|&f| local[f as usize]));
                let row = match key_ids.get(&global) {
                    Some(&i) => i,
                    None => {
                        let i = t.keys.len();
                        t.keys.push(global.clone());
                        key_ids.insert(global.clone(), i);
                        for v in &mut t.values {
                            v.extend(std::iter::repeat_n(0.0, n));
                        }
                        t.present.extend(std::iter::repeat_n(false, n));
                        i
                    }
                };
                for (m, &c) in cols.iter().enumerate() {
                    t.values[m][row * n + r] += vals[c];
                }
                t.present[row * n + r] = true;
            }
            for (m, &metric) in metrics.iter().enumerate() {
                t.totals[m][r] = run.total(metric).unwrap_or(0.0);
            }
        }
        t
    }

    /// Number of runs.
    pub fn runs(&self) -> usize {
        self.na + self.nb
    }

    /// Divides each run's values by the run's total of the metric (a run
    /// whose total is 0 keeps zeros).
    pub fn normalize(&mut self) {
        let n = self.runs();
        for (values, totals) in self.values.iter_mut().zip(&self.totals) {
            for row in values.chunks_mut(n) {
                for (v, &t) in row.iter_mut().zip(totals) {
                    *v = if t != 0.0 { *v / t } else { 0.0 };
                }
            }
        }
    }

    /// The values of row `row` for metric number `m`: A's runs, then B's.
    pub fn row_values(&self, m: usize, row: usize) -> &[f64] {
        let n = self.runs();
        &self.values[m][row * n..(row + 1) * n]
    }

    /// How many runs of A and of B have the row.
    pub fn presence(&self, row: usize) -> (usize, usize) {
        let n = self.runs();
        let p = &self.present[row * n..(row + 1) * n];
        let a = p[..self.na].iter().filter(|&&x| x).count();
        (a, p[self.na..].iter().filter(|&&x| x).count())
    }

    /// The frames of a row's key.
    pub fn key_names(&self, row: usize) -> Vec<String> {
        self.keys[row]
            .iter()
            .map(|&f| self.frames[f as usize].clone())
            .collect()
    }
}

//! One run's measurements, reduced to rows: what the statistics compare.

use crate::metric::{By, Metric};
use rustc_hash::FxHashMap;

/// One run (one trace, emulator run or path log) reduced to rows: each row
/// is a key (a method, a call path, a category, …, as a list of frame
/// names) with one value per metric. Rows of runs are matched by their
/// frame names, never by the ids of the file they came from.
#[derive(Debug, Clone)]
pub struct RunData {
    /// Where the run came from (a file name).
    pub label: String,
    /// What a row stands for.
    pub by: By,
    /// The metrics every row has, in this order.
    pub metrics: Vec<Metric>,
    frames: Vec<String>,
    frame_index: FxHashMap<String, u32>,
    keys: Vec<Vec<u32>>,
    values: Vec<f64>,
    row_index: FxHashMap<Vec<u32>, usize>,
}

impl RunData {
    /// An empty run whose rows will carry `metrics`.
    pub fn new(label: impl Into<String>, by: By, metrics: Vec<Metric>) -> RunData {
        RunData {
            label: label.into(),
            by,
            metrics,
            frames: Vec::new(),
            frame_index: FxHashMap::default(),
            keys: Vec::new(),
            values: Vec::new(),
            row_index: FxHashMap::default(),
        }
    }

    /// The index of a frame name, added when new.
    pub fn frame(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.frame_index.get(name) {
            return i;
        }
        let i = self.frames.len() as u32;
        self.frames.push(name.to_owned());
        self.frame_index.insert(name.to_owned(), i);
        i
    }

    /// Adds `values` (one per metric) to the row `key` (frame indices from
    /// [`RunData::frame`]), creating it when new: two entries with the same
    /// names (one method listed under two ids) are one row.
    pub fn add(&mut self, key: &[u32], values: &[f64]) {
        debug_assert_eq!(values.len(), self.metrics.len());
        let m = self.metrics.len();
        let row = match self.row_index.get(key) {
            Some(&r) => r,
            None => {
                let r = self.keys.len();
                self.keys.push(key.to_vec());
                self.values.extend(std::iter::repeat_n(0.0, m));
                self.row_index.insert(key.to_vec(), r);
                r
            }
        };
        for (slot, v) in self.values[row * m..(row + 1) * m].iter_mut().zip(values) {
            *slot += v;
        }
    }

    /// Frame names, indexed by the numbers in keys.
    pub fn frames(&self) -> &[String] {
        &self.frames
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when the run has no rows.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Iterates over `(key, values)` rows, values in [`RunData::metrics`] order.
    pub fn rows(&self) -> impl Iterator<Item = (&[u32], &[f64])> + '_ {
        let m = self.metrics.len().max(1);
        self.keys.iter().map(Vec::as_slice).zip(self.values.chunks(m))
    }

    /// The key of a row as names.
    pub fn key_names(&self, key: &[u32]) -> Vec<&str> {
        key.iter().map(|&f| self.frames[f as usize].as_str()).collect()
    }

    /// Position of `metric` among this run's metrics.
    pub fn metric_index(&self, metric: Metric) -> Option<usize> {
        self.metrics.iter().position(|&m| m == metric)
    }

    /// The run's total of `metric`: the sum over rows of
    /// [`Metric::total_of`] (what `--normalize` divides by). `None` when
    /// the run lacks that metric.
    pub fn total(&self, metric: Metric) -> Option<f64> {
        let i = self.metric_index(metric.total_of())?;
        Some(self.rows().map(|(_, v)| v[i]).sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_with_equal_names_merge() {
        let mut r = RunData::new("x", By::Method, vec![Metric::Calls, Metric::ExclWall]);
        let a = r.frame("A.f");
        let b = r.frame("B.g");
        assert_eq!(r.frame("A.f"), a);
        r.add(&[a], &[1.0, 10.0]);
        r.add(&[b], &[2.0, 5.0]);
        r.add(&[a], &[3.0, 1.0]);
        assert_eq!(r.len(), 2);
        let rows: Vec<_> = r.rows().map(|(k, v)| (r.key_names(k), v.to_vec())).collect();
        assert_eq!(rows[0], (vec!["A.f"], vec![4.0, 11.0]));
        assert_eq!(r.total(Metric::ExclWall), Some(16.0));
        assert_eq!(
            r.total(Metric::InclWall),
            Some(16.0),
            "inclusive totals are the exclusive sum"
        );
        assert_eq!(r.total(Metric::InclCpu), None);
    }
}

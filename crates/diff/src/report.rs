//! The typed result of a comparison: what `tracekit diff --json` prints.
//! Fields are only ever added, never renamed or removed.

use crate::metric::{By, Metric};
use serde::Serialize;

/// What a row's change amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// B costs more than A: significant after correction, the interval
    /// excludes 0, and the change reaches the noise floor (exact rows: the
    /// change reaches the floor).
    Regressed,
    /// B costs less than A, by the same rules.
    Improved,
    /// The change is smaller than the noise floor.
    Unchanged,
    /// The change reaches the noise floor but is not significant (too few
    /// runs, too noisy, or an interval that includes 0).
    Inconclusive,
}

impl Verdict {
    /// The word tables print.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// One key and metric present on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffRow {
    /// The row's frames: one method name, a call path from the root, a
    /// method and a block path, …
    pub key: Vec<String>,
    /// What is compared.
    pub metric: Metric,
    /// Median over A's runs (a run without the row counts as 0); a share
    /// of the run's total when normalised.
    pub median_a: f64,
    /// Median over B's runs.
    pub median_b: f64,
    /// `median_b − median_a`, in the metric's unit (exact for exact rows).
    pub delta: f64,
    /// `delta / median_a` (0.1 = +10%); 0 when both medians are 0, ±∞
    /// (`null` in JSON) when only `median_a` is.
    pub change: f64,
    /// Lower end of the bootstrap confidence interval of `change`
    /// (resampling whole runs); ±∞ (`null` in JSON) when resamples with a
    /// zero median of A reach it. Equal to `change` for exact rows.
    pub ci_low: f64,
    /// Upper end of that interval.
    pub ci_high: f64,
    /// Two-sided Mann–Whitney U p-value; `None` for exact rows.
    pub p_value: Option<f64>,
    /// `p_value` adjusted by Benjamini–Hochberg over every tested row.
    pub q_value: Option<f64>,
    /// Cliff's δ of B against A, −1..=1 (1: every B run above every A run).
    pub cliffs_delta: f64,
    /// Run-to-run spread: the robust coefficient of variation of both
    /// sides pooled (1.4826 × the median relative deviation of each run
    /// from its side's median).
    pub spread: f64,
    /// The change below which the row counts as unchanged: the larger of
    /// the settings' minimum and `spread`.
    pub noise_floor: f64,
    /// Every run of each side has the same count: the difference is exact
    /// and needs no test (deterministic programs, emulator counts, path
    /// frequencies).
    pub exact: bool,
    /// The verdict.
    pub verdict: Verdict,
    /// Runs of A that have the row.
    pub present_a: usize,
    /// Runs of B that have the row.
    pub present_b: usize,
    /// A's value in each run, in the order the runs were given.
    pub values_a: Vec<f64>,
    /// B's value in each run.
    pub values_b: Vec<f64>,
}

/// A key that one side never has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OnlyRow {
    /// The row's frames.
    pub key: Vec<String>,
    /// The metric.
    pub metric: Metric,
    /// Median over the side's runs (runs without it count as 0).
    pub median: f64,
    /// Runs of the side that have it.
    pub present: usize,
    /// The value in each run of the side.
    pub values: Vec<f64>,
}

/// How the comparison was made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    /// Each run's values were divided by the run's total of the metric.
    pub normalized: bool,
    /// Significance level for the adjusted p-values.
    pub alpha: f64,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// The smallest noise floor (relative change), e.g. 0.02.
    pub min_noise_floor: f64,
    /// Bootstrap resamples used.
    pub resamples: usize,
    /// Seed of the resampling generator.
    pub seed: u64,
}

/// Rows per verdict.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Rows present on both sides.
    pub rows: usize,
    /// Regressed rows.
    pub regressed: usize,
    /// Improved rows.
    pub improved: usize,
    /// Unchanged rows.
    pub unchanged: usize,
    /// Inconclusive rows.
    pub inconclusive: usize,
    /// Rows only in A.
    pub only_in_a: usize,
    /// Rows only in B.
    pub only_in_b: usize,
}

/// A whole comparison of runs A (before) with runs B (after).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReport {
    /// What a row stands for.
    pub by: By,
    /// The metrics compared.
    pub metrics: Vec<Metric>,
    /// A's runs, as given.
    pub runs_a: Vec<String>,
    /// B's runs.
    pub runs_b: Vec<String>,
    /// How it was computed.
    pub settings: Settings,
    /// What limits the conclusions (too few runs, …).
    pub warnings: Vec<String>,
    /// Rows per verdict.
    pub summary: Summary,
    /// Keys on both sides, per metric in `metrics` order, each metric's
    /// rows by decreasing size of change (|delta|).
    pub rows: Vec<DiffRow>,
    /// Keys no run of B has, largest first.
    pub only_in_a: Vec<OnlyRow>,
    /// Keys no run of A has, largest first.
    pub only_in_b: Vec<OnlyRow>,
}

impl DiffReport {
    /// Rows judged regressed.
    pub fn regressions(&self) -> impl Iterator<Item = &DiffRow> + '_ {
        self.rows.iter().filter(|r| r.verdict == Verdict::Regressed)
    }

    /// Rows judged regressed or improved.
    pub fn flagged(&self) -> impl Iterator<Item = &DiffRow> + '_ {
        self.rows
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::Regressed | Verdict::Improved))
    }
}

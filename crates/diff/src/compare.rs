//! The comparison: the rows of two sides of runs matched by name, each
//! row's statistics, the correction over all rows, and the verdicts.

use crate::metric::{Metric, MetricKind};
use crate::report::{DiffReport, DiffRow, OnlyRow, Settings, Summary, Verdict};
use crate::run::RunData;
use crate::stats::{
    benjamini_hochberg, mann_whitney_u, median, pooled_robust_cv, quantile_sorted, MannWhitney, Resamples, Rng,
};
use crate::table::Table;

/// How to compare.
#[derive(Debug, Clone)]
pub struct Options {
    /// The metrics to compare; empty means [`default_metrics`].
    pub metrics: Vec<Metric>,
    /// Divide each run's values by the run's total of the metric first.
    pub normalize: bool,
    /// The smallest noise floor, as a relative change (0.02 = 2%).
    pub min_noise_floor: f64,
    /// Significance level of the adjusted p-values.
    pub alpha: f64,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// Bootstrap resamples (fewer when rows × resamples would exceed
    /// [`RESAMPLE_BUDGET`]; the report says how many were used).
    pub resamples: usize,
    /// Seed of the resampling generator: equal inputs and seed give equal
    /// reports.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            metrics: Vec::new(),
            normalize: false,
            min_noise_floor: 0.02,
            alpha: 0.05,
            confidence: 0.95,
            resamples: 2000,
            seed: 0x5EED_D1FF,
        }
    }
}

/// Most row × resample medians one comparison computes (about a second of
/// work); beyond it the resample count shrinks, down to [`MIN_RESAMPLES`].
pub const RESAMPLE_BUDGET: usize = 40_000_000;
/// Fewest resamples ever used.
pub const MIN_RESAMPLES: usize = 200;

/// Why runs cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A side has no runs.
    #[error("side {0} has no runs")]
    NoRuns(&'static str),
    /// Runs have rows of different kinds.
    #[error("{label} has rows by {found}, but {first} has rows by {expected}")]
    MixedRows {
        /// The odd run.
        label: String,
        /// Its kind of rows.
        found: &'static str,
        /// The first run.
        first: String,
        /// The first run's kind.
        expected: &'static str,
    },
    /// A run lacks a metric asked for.
    #[error("{label} has no {metric} (it has: {available})")]
    MissingMetric {
        /// The run.
        label: String,
        /// The metric.
        metric: Metric,
        /// What it has.
        available: String,
    },
    /// No metric is common to every run.
    #[error("no metric is common to every run")]
    NoCommonMetric,
}

/// The metric compared when none is asked for: exclusive time on the wall
/// clock (or the thread-CPU clock when some run has no wall clock), else
/// the first count every run has. Exclusive time says *where* time went:
/// a method's own cost, not its callees'.
pub fn default_metrics(runs: &[&RunData]) -> Result<Vec<Metric>, Error> {
    let all = |m: Metric| runs.iter().all(|r| r.metric_index(m).is_some());
    [
        Metric::ExclWall,
        Metric::ExclCpu,
        Metric::Instructions,
        Metric::Executions,
        Metric::Calls,
    ]
    .into_iter()
    .find(|&m| all(m))
    .map(|m| vec![m])
    .ok_or(Error::NoCommonMetric)
}

/// Checks the runs and returns the metrics to compare.
pub(crate) fn checked_metrics(a: &[RunData], b: &[RunData], wanted: &[Metric]) -> Result<Vec<Metric>, Error> {
    if a.is_empty() {
        return Err(Error::NoRuns("A"));
    }
    if b.is_empty() {
        return Err(Error::NoRuns("B"));
    }
    let runs: Vec<&RunData> = a.iter().chain(b).collect();
    let first = runs[0];
    if let Some(odd) = runs.iter().find(|r| r.by != first.by) {
        return Err(Error::MixedRows {
            label: odd.label.clone(),
            found: odd.by.name(),
            first: first.label.clone(),
            expected: first.by.name(),
        });
    }
    let metrics = if wanted.is_empty() {
        default_metrics(&runs)?
    } else {
        wanted.to_vec()
    };
    for &m in &metrics {
        for r in &runs {
            if r.metric_index(m).is_none() || r.total(m).is_none() {
                return Err(Error::MissingMetric {
                    label: r.label.clone(),
                    metric: m,
                    available: r.metrics.iter().map(|m| m.name()).collect::<Vec<_>>().join(", "),
                });
            }
        }
    }
    Ok(metrics)
}

/// What the per-row work shares.
struct Shared<'a> {
    table: &'a Table,
    mw: MannWhitney,
    plans_a: Resamples,
    plans_b: Resamples,
    opts: &'a Options,
}

enum Outcome {
    Both(DiffRow),
    OnlyA(OnlyRow),
    OnlyB(OnlyRow),
}

/// Compares runs A (before) with runs B (after).
pub fn compare(a: &[RunData], b: &[RunData], opts: &Options) -> Result<DiffReport, Error> {
    let metrics = checked_metrics(a, b, &opts.metrics)?;
    let mut table = Table::build(a, b, &metrics);
    if opts.normalize {
        table.normalize();
    }
    let (na, nb) = (a.len(), b.len());
    let tasks = table.keys.len() * metrics.len();
    let resamples = RESAMPLE_BUDGET
        .checked_div(tasks)
        .map_or(opts.resamples, |fit| opts.resamples.min(fit.max(MIN_RESAMPLES)));
    let mut rng = Rng::new(opts.seed);
    let shared = Shared {
        table: &table,
        mw: MannWhitney::new(na, nb),
        plans_a: Resamples::new(&mut rng, na, resamples),
        plans_b: Resamples::new(&mut rng, nb, resamples),
        opts,
    };
    let outcomes = run_rows(&shared, tasks);

    let mut rows = Vec::new();
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    for o in outcomes {
        match o {
            Outcome::Both(r) => rows.push(r),
            Outcome::OnlyA(r) => only_a.push(r),
            Outcome::OnlyB(r) => only_b.push(r),
        }
    }
    // Benjamini–Hochberg over every tested row, then the verdicts.
    let tested: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].p_value.is_some()).collect();
    let p: Vec<f64> = tested.iter().map(|&i| rows[i].p_value.unwrap_or(1.0)).collect();
    for (&i, q) in tested.iter().zip(benjamini_hochberg(&p)) {
        rows[i].q_value = Some(q);
    }
    for r in &mut rows {
        r.verdict = verdict(r, opts.alpha);
    }
    let order = |m: Metric| metrics.iter().position(|&x| x == m).unwrap_or(usize::MAX);
    rows.sort_by(|x, y| {
        order(x.metric)
            .cmp(&order(y.metric))
            .then(y.delta.abs().total_cmp(&x.delta.abs()))
            .then_with(|| x.key.cmp(&y.key))
    });
    for list in [&mut only_a, &mut only_b] {
        list.sort_by(|x, y| {
            order(x.metric)
                .cmp(&order(y.metric))
                .then(y.median.abs().total_cmp(&x.median.abs()))
                .then_with(|| x.key.cmp(&y.key))
        });
    }
    let mut summary = Summary {
        rows: rows.len(),
        only_in_a: only_a.len(),
        only_in_b: only_b.len(),
        ..Summary::default()
    };
    for r in &rows {
        match r.verdict {
            Verdict::Regressed => summary.regressed += 1,
            Verdict::Improved => summary.improved += 1,
            Verdict::Unchanged => summary.unchanged += 1,
            Verdict::Inconclusive => summary.inconclusive += 1,
        }
    }
    let warnings = warnings(&shared, tested.len(), resamples, &rows);
    Ok(DiffReport {
        by: a[0].by,
        metrics,
        runs_a: a.iter().map(|r| r.label.clone()).collect(),
        runs_b: b.iter().map(|r| r.label.clone()).collect(),
        settings: Settings {
            normalized: opts.normalize,
            alpha: opts.alpha,
            confidence: opts.confidence,
            min_noise_floor: opts.min_noise_floor,
            resamples,
            seed: opts.seed,
        },
        warnings,
        summary,
        rows,
        only_in_a: only_a,
        only_in_b: only_b,
    })
}

/// Computes every (metric, row) task, on all cores; the order and the
/// results do not depend on the number of threads.
fn run_rows(shared: &Shared, tasks: usize) -> Vec<Outcome> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let chunk = tasks.div_ceil(threads).max(256);
    let mut out: Vec<Option<Outcome>> = (0..tasks).map(|_| None).collect();
    std::thread::scope(|s| {
        for (c, slots) in out.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                let mut scratch = Scratch::default();
                for (i, slot) in slots.iter_mut().enumerate() {
                    *slot = row(shared, c * chunk + i, &mut scratch);
                }
            });
        }
    });
    out.into_iter().flatten().collect()
}

#[derive(Default)]
struct Scratch {
    a: Vec<f64>,
    b: Vec<f64>,
    ma: Vec<f64>,
    mb: Vec<f64>,
    changes: Vec<f64>,
}

/// Task `task` = metric `task / rows`, row `task % rows`.
fn row(sh: &Shared, task: usize, s: &mut Scratch) -> Option<Outcome> {
    let t = sh.table;
    let nrows = t.keys.len();
    let (mi, ri) = (task / nrows, task % nrows);
    let metric = t.metrics[mi];
    let na = t.na;
    let (present_a, present_b) = t.presence(ri);
    if present_a == 0 && present_b == 0 {
        return None;
    }
    let vals = t.row_values(mi, ri);
    s.a.clear();
    s.a.extend_from_slice(&vals[..na]);
    s.b.clear();
    s.b.extend_from_slice(&vals[na..]);
    let key = t.key_names(ri);
    let med = |v: &[f64]| median(&mut v.to_vec());
    if present_b == 0 {
        return Some(Outcome::OnlyA(OnlyRow {
            key,
            metric,
            median: med(&s.a),
            present: present_a,
            values: s.a.clone(),
        }));
    }
    if present_a == 0 {
        return Some(Outcome::OnlyB(OnlyRow {
            key,
            metric,
            median: med(&s.b),
            present: present_b,
            values: s.b.clone(),
        }));
    }
    let (median_a, median_b) = (med(&s.a), med(&s.b));
    let delta = median_b - median_a;
    let change = relative(median_a, median_b);
    let all_equal = |v: &[f64]| v.windows(2).all(|w| w[0] == w[1]);
    let exact = metric.kind() == MetricKind::Count && all_equal(&s.a) && all_equal(&s.b);
    let spread = if exact { 0.0 } else { pooled_robust_cv(&[&s.a, &s.b]) };
    let (u, cliffs_delta) = mann_whitney_u(&s.a, &s.b);
    let (p_value, ci_low, ci_high) = if exact {
        (None, change, change)
    } else {
        sh.plans_a.medians(&s.a, &mut s.ma);
        sh.plans_b.medians(&s.b, &mut s.mb);
        s.changes.clear();
        s.changes.extend(s.ma.iter().zip(&s.mb).map(|(&x, &y)| relative(x, y)));
        s.changes.sort_by(f64::total_cmp);
        let tail = (1.0 - sh.opts.confidence) / 2.0;
        (
            Some(sh.mw.p_value(&s.a, &s.b, u)),
            quantile_sorted(&s.changes, tail),
            quantile_sorted(&s.changes, 1.0 - tail),
        )
    };
    Some(Outcome::Both(DiffRow {
        key,
        metric,
        median_a,
        median_b,
        delta,
        change,
        ci_low,
        ci_high,
        p_value,
        q_value: None,
        cliffs_delta,
        spread,
        noise_floor: sh.opts.min_noise_floor.max(spread),
        exact,
        verdict: Verdict::Inconclusive,
        present_a,
        present_b,
        values_a: s.a.clone(),
        values_b: s.b.clone(),
    }))
}

/// `(b − a) / |a|`; 0 when both are 0; ±∞ when only `a` is 0.
fn relative(a: f64, b: f64) -> f64 {
    if a != 0.0 {
        (b - a) / a.abs()
    } else if b == 0.0 {
        0.0
    } else {
        f64::INFINITY.copysign(b)
    }
}

/// The verdict of a row whose q-value is known (see [`Verdict`]).
pub(crate) fn verdict(r: &DiffRow, alpha: f64) -> Verdict {
    let floor = r.noise_floor;
    let reaches_floor = r.change.abs() >= floor;
    let direction = if r.delta > 0.0 {
        Verdict::Regressed
    } else {
        Verdict::Improved
    };
    if r.exact {
        return if r.delta == 0.0 || !reaches_floor {
            Verdict::Unchanged
        } else {
            direction
        };
    }
    let excludes_zero = (r.delta > 0.0 && r.ci_low > 0.0) || (r.delta < 0.0 && r.ci_high < 0.0);
    let significant = r.q_value.is_some_and(|q| q < alpha) && excludes_zero;
    if significant && reaches_floor && r.delta != 0.0 {
        direction
    } else if !reaches_floor {
        Verdict::Unchanged
    } else {
        Verdict::Inconclusive
    }
}

fn warnings(sh: &Shared, tested: usize, resamples: usize, rows: &[DiffRow]) -> Vec<String> {
    let (na, nb) = (sh.table.na, sh.table.nb);
    let alpha = sh.opts.alpha;
    let mut w = Vec::new();
    let noisy = rows.iter().any(|r| !r.exact);
    if noisy {
        let min_p = sh.mw.min_p();
        if na < 2 || nb < 2 {
            w.push(format!(
                "{na} run(s) of A and {nb} of B: differences are shown, but one run per side cannot tell a change from noise; give several runs per side (10 or more)"
            ));
        } else if min_p >= alpha {
            w.push(format!(
                "too few runs for the test to mean anything: with {na} and {nb} runs the smallest possible p-value is {min_p:.3}, not below {alpha}; give 10 or more runs per side"
            ));
        } else if min_p * tested as f64 > alpha {
            w.push(format!(
                "too few runs for {tested} rows: with {na} and {nb} runs the smallest possible p-value is {min_p:.2e}, which the correction over {tested} rows lifts above {alpha}; give more runs per side or compare fewer rows"
            ));
        }
        if resamples < sh.opts.resamples {
            w.push(format!(
                "{tested} rows: intervals use {resamples} bootstrap resamples instead of {} to stay within the time budget",
                sh.opts.resamples
            ));
        }
    }
    w
}

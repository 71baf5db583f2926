//! Compare runs: "did my change make it slower, and where?"
//!
//! Each run (a trace, an emulator run, a decoded path log) is first reduced
//! to rows — per method or call path, per instruction category, function or
//! block, per block path or edge — each with a value per [`Metric`]
//! ([`RunData`], built by [`trace::from_session`], [`emu::from_analysis`],
//! [`emu::from_capture`] and [`paths::PathRows`]). Rows of different
//! files are matched by name: methods by class, name and signature, native
//! functions by name and module, never by the ids a file gave them.
//! [`compare`] then sets runs A (before) against runs B (after):
//!
//! - the **median** per side (a run without the row counts as 0);
//! - the **relative change** of the medians with a **bootstrap confidence
//!   interval** (95% by default) that resamples *whole runs*: one resample
//!   draws the same runs for every row, from a seeded SplitMix64, so the
//!   same inputs always give the same report;
//! - the two-sided **Mann–Whitney U** p-value (exact null distribution when
//!   no values tie and `na·nb ≤ 2500`, else the normal approximation with
//!   tie and continuity corrections), adjusted by **Benjamini–Hochberg**
//!   over every tested row of every metric;
//! - **Cliff's δ**, the effect size;
//! - the **run-to-run spread** (a robust coefficient of variation: 1.4826 ×
//!   the median relative deviation of each run from its side's median, both
//!   sides pooled) and the **noise floor**, the
//!   larger of the spread and a minimum (2% by default);
//! - a **verdict** ([`Verdict`]): *regressed* (or *improved*) when the
//!   adjusted p-value is below α, the interval excludes 0 and the change
//!   reaches the noise floor; *unchanged* when the change is below the
//!   floor; *inconclusive* when it reaches the floor without being
//!   significant;
//! - **exact** differences for counts that every run of a side agrees on
//!   (call counts of deterministic programs, emulator instruction counts,
//!   path frequencies): no test, the change is a fact, judged against the
//!   minimum floor only;
//! - **only in A** / **only in B** sections for keys one side never has;
//! - optional **normalisation** of each run by its total (the sum of the
//!   metric's exclusive counterpart over the run's rows), which removes a
//!   whole-run speed factor (a slower machine) from every row;
//! - warnings when a side has too few runs for the test to mean anything.
//!
//! Every metric is a cost, so an increase is a regression. The outputs are
//! the typed [`DiffReport`] (`tracekit diff --json`), a text table sorted
//! by size of change ([`render::render_table`]), folded stacks with two
//! counts for differential flame-graph tools ([`flame::write_folded`]) and
//! the tree of the HTML differential flame graph ([`flame::FlameTree`]).
//!
//! Energy plugs in through [`trace::EnergyAttribution`]: a run built with
//! one gains `incl-energy` and `excl-energy` rows.
//!
//! This crate is analysis: it never reads a file. The caller opens traces
//! through the one door, emulator runs through `tracekit-emu`'s run loader,
//! path logs through `tracekit-jvm`'s decoder, and hands the data over.
//!
//! ```
//! use tracekit_diff::{compare, By, Metric, Options, RunData, Verdict};
//! let run = |label: &str, v: f64| {
//!     let mut r = RunData::new(label, By::Method, vec![Metric::Calls]);
//!     let f = r.frame("App.work");
//!     r.add(&[f], &[v]);
//!     r
//! };
//! let a = [run("a1", 100.0), run("a2", 100.0)];
//! let b = [run("b1", 120.0), run("b2", 120.0)];
//! let report = compare(&a, &b, &Options::default()).unwrap();
//! let row = &report.rows[0];
//! assert!(row.exact && row.delta == 20.0 && row.verdict == Verdict::Regressed);
//! ```

mod compare;
pub mod emu;
pub mod flame;
mod metric;
pub mod paths;
pub mod render;
mod report;
mod run;
pub mod stats;
mod table;
pub mod trace;

pub use compare::{compare, default_metrics, Error, Options, MIN_RESAMPLES, RESAMPLE_BUDGET};
pub use metric::{By, Metric, MetricKind};
pub use report::{DiffReport, DiffRow, OnlyRow, Settings, Summary, Verdict};
pub use run::RunData;
pub use trace::EnergyAttribution;

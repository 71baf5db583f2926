//! Turns a tracekit [`Session`](tracekit_model::Session) and analysis results
//! into what the timeline viewer draws, and writes the self-contained HTML
//! report (`tracekit report NAME --html`). The web UI (`tracekit-ui`) serves
//! the same page and asks for the same data piece by piece.
//!
//! - [`ViewModel`] prepares a session: call slices per thread and depth
//!   ([`ThreadSlices`], from `tracekit-analysis`), the span, and the small
//!   tracks as JSON metadata.
//! - The queries come from `tracekit-analysis` and are re-exported here:
//!   [`Level::boxes`] (level of detail: calls narrower than a pixel are
//!   merged, so a window costs O(pixels · log calls)) and
//!   [`interval_profile`] (profile and call tree inside a selection or where
//!   a condition holds). This crate computes nothing of its own; only the
//!   static report's JavaScript mirrors `interval_profile`'s rules, because
//!   a page without a server must answer selections itself.
//! - [`ProblemView`] is a problem and its hints as the view draws them.
//! - [`render_report`] writes the page with everything inlined, summarising
//!   (and saying so) when there are more calls than `max_slices`.
//! - [`render_diff_page`] writes `tracekit diff --html`'s page: a
//!   comparison's differential flame graph (`tracekit-diff`'s
//!   [`FlameTree`](tracekit_diff::flame::FlameTree): widths from B, red
//!   where a frame grew, blue where it shrank) and its rows.
//!
//! ```
//! use tracekit_model::*;
//! use tracekit_report::{render_report, ReportOptions, ViewModel};
//! let mut s = Session::new("demo", Clocks::WALL);
//! let main = s.add_thread(Thread::new(1, "main"));
//! let m = s.methods.intern(Method::new("com/example/App", "run", "()V"));
//! s.calls_mut(main).push(CallEvent::enter(m, 0, None));
//! s.calls_mut(main).push(CallEvent::exit(m, 1_000, None));
//! let html = render_report(&ViewModel::new(&s), &[], &ReportOptions::default());
//! assert!(html.contains("com.example.App.run"));
//! ```

mod analysis;
mod diff;
mod embed;
mod html;
mod problems;
mod report;
pub mod synthetic;
mod view;

pub use analysis::{problem_view, AnalysisSolver};
pub use diff::{diff_page_data, render_diff_page, DIFF_PAGE_ROWS};
pub use embed::{encode_threads, omission_threshold, Summary, DENSITY_BUCKETS};
pub use html::{page, PageMode};
pub use problems::{Hint, ProblemDef, ProblemSolver, ProblemView, ThreadInstant, TopValue};
pub use report::{render_report, report_data, ReportOptions};
pub use tracekit_analysis::slices::{gallop, DrawBox, Level, NO_PARENT, RECURSIVE_BIT};
pub use tracekit_analysis::{
    interval_profile, normalize_intervals, IntervalProfile, ProfileRow, ThreadSlices, TreeNode, MAX_TREE_NODES,
};
pub use view::ViewModel;

//! The self-contained HTML report.

use crate::embed::{encode_threads, omission_threshold};
use crate::html::{page, PageMode};
use crate::problems::ProblemView;
use crate::view::ViewModel;
use serde_json::{json, Value};
use tracekit_analysis::{interval_profile, MAX_TREE_NODES};

/// Report settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportOptions {
    /// Most calls drawn individually; beyond it the shortest calls are
    /// counted per time bucket instead, and the report says so.
    pub max_slices: usize,
}

impl Default for ReportOptions {
    fn default() -> ReportOptions {
        ReportOptions { max_slices: 1_000_000 }
    }
}

/// The data the report inlines: metadata, encoded slices, the summary, the
/// whole-session profile and the given problems.
pub fn report_data(view: &ViewModel, problems: &[ProblemView], opts: &ReportOptions) -> Value {
    let threshold = omission_threshold(&view.threads, opts.max_slices);
    let (threads, summary) = encode_threads(&view.threads, view.span, threshold);
    let mut profile = interval_profile(&view.threads, &[(view.span.0, view.span.1.saturating_add(1))]);
    profile.prune_tree(MAX_TREE_NODES);
    json!({
        "meta": view.meta(),
        "slices": threads,
        "summary": {
            "summarised": summary.summarised(),
            "totalCalls": summary.total_calls,
            "shownCalls": summary.shown_calls,
            "maxOmittedNs": summary.max_omitted_ns,
        },
        "profile": profile,
        "problems": problems,
    })
}

/// The complete self-contained HTML page for `view` and `problems`.
pub fn render_report(view: &ViewModel, problems: &[ProblemView], opts: &ReportOptions) -> String {
    page(PageMode::Embedded, &view.name, &report_data(view, problems, opts))
}

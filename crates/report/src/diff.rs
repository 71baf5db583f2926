//! The differential flame graph page (`tracekit diff --html OUT`): one
//! self-contained file, like the report, that draws a comparison's
//! [`FlameTree`] (widths from B, red where a frame's own value grew, blue
//! where it shrank) above the comparison's rows.

use crate::html::{escape_html, script_safe_json};
use serde_json::{json, Value};
use tracekit_diff::flame::{folded_scale, FlameTree};
use tracekit_diff::{DiffReport, DiffRow, Verdict};

const TEMPLATE: &str = include_str!("../assets/diff.html");
const SCRIPT: &str = include_str!("../assets/diff.js");

/// Rows of the page's table: the first rows by size of change and every
/// regressed or improved row.
pub const DIFF_PAGE_ROWS: usize = 200;

/// The data the page inlines.
pub fn diff_page_data(title: &str, report: &DiffReport, tree: &FlameTree) -> Value {
    let rows: Vec<&DiffRow> = report
        .rows
        .iter()
        .enumerate()
        .filter(|(i, r)| *i < DIFF_PAGE_ROWS || matches!(r.verdict, Verdict::Regressed | Verdict::Improved))
        .map(|(_, r)| r)
        .collect();
    let nodes: Vec<Value> = tree
        .nodes
        .iter()
        .map(|n| {
            json!([
                n.name,
                n.parent,
                n.self_a,
                n.self_b,
                n.total_a,
                n.total_b,
                n.verdict.map(Verdict::name)
            ])
        })
        .collect();
    let (_, folded_unit) = folded_scale(tree.metric, tree.normalized);
    json!({
        "title": title,
        "runsA": report.runs_a.len(),
        "runsB": report.runs_b.len(),
        "by": report.by.name(),
        "settings": report.settings,
        "summary": report.summary,
        "warnings": report.warnings,
        "flameMetric": tree.metric,
        "flameKind": tree.metric.kind(),
        "normalized": tree.normalized,
        "foldedUnit": folded_unit,
        "rows": rows.iter().map(|r| json!({
            "key": r.key,
            "metric": r.metric,
            "kind": r.metric.kind(),
            "verdict": r.verdict,
            "change": r.change,
            "ciLow": r.ci_low,
            "ciHigh": r.ci_high,
            "q": r.q_value,
            "exact": r.exact,
            "medianA": r.median_a,
            "medianB": r.median_b,
            "delta": r.delta,
        })).collect::<Vec<_>>(),
        "nodes": nodes,
    })
}

/// The complete page.
pub fn render_diff_page(title: &str, report: &DiffReport, tree: &FlameTree) -> String {
    let data = diff_page_data(title, report, tree);
    TEMPLATE
        .replace("{{TITLE}}", &escape_html(title))
        .replace("{{SCRIPT}}", &SCRIPT.replace("</script", "<\\/script"))
        .replace("{{DATA}}", &script_safe_json(&data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_diff::flame::{folded_lines, FlameTree};
    use tracekit_diff::{compare, By, Metric, Options, RunData};

    fn run(label: &str, main: f64, f: f64) -> RunData {
        let mut r = RunData::new(label, By::Path, vec![Metric::ExclWall]);
        let m = r.frame("main</script><script>alert(1)</script>");
        let g = r.frame("f");
        r.add(&[m], &[main]);
        r.add(&[m, g], &[f]);
        r
    }

    #[test]
    fn the_page_is_self_contained_and_names_cannot_escape() {
        let a = [run("a", 100.0, 50.0)];
        let b = [run("b", 100.0, 80.0)];
        let report = compare(&a, &b, &Options::default()).unwrap();
        let tree = FlameTree::new(
            &folded_lines(&a, &b, Metric::ExclWall, false).unwrap(),
            Metric::ExclWall,
            false,
            Some(&report),
        );
        let html = render_diff_page("x<y", &report, &tree);
        assert!(html.contains("<title>tracekit diff — x&lt;y</title>"));
        assert!(!html.contains("</script><script>alert"));
        assert!(html.contains("default-src 'none'"));
        assert!(!html.contains("src=\"http") && !html.contains("<link"));
        let data = diff_page_data("x", &report, &tree);
        assert_eq!(data["nodes"].as_array().unwrap().len(), 2);
        assert_eq!(data["nodes"][1][3], 80.0);
    }
}

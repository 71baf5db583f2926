//! Differential flame graphs: folded stacks with two counts (the format
//! Brendan Gregg's `difffolded.pl` writes and `flamegraph.pl` draws: `stack
//! countA countB`), and the tree the HTML page draws (widths from B, red
//! where a frame grew, blue where it shrank).

use crate::compare::{checked_metrics, Error};
use crate::metric::{By, Metric, MetricKind};
use crate::report::{DiffReport, Verdict};
use crate::run::RunData;
use crate::table::Table;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// One stack and its mean value per run on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoldedLine {
    /// Frames from the root.
    pub frames: Vec<String>,
    /// Mean over A's runs (a run without the stack counts as 0).
    pub a: f64,
    /// Mean over B's runs.
    pub b: f64,
}

/// The additive metric a flame graph of `metric` shows: the exclusive
/// counterpart of an inclusive metric (a frame's width is then its own
/// value plus its children's, which is the inclusive value).
pub fn flame_metric(metric: Metric) -> Metric {
    metric.total_of()
}

/// Every stack of the runs (rows by call path, or one-frame stacks for
/// other rows) with the mean per run of each side of
/// [`flame_metric`]`(metric)`, optionally normalised by each run's total.
/// Means, not medians, so that a frame's children add up to it.
pub fn folded_lines(a: &[RunData], b: &[RunData], metric: Metric, normalize: bool) -> Result<Vec<FoldedLine>, Error> {
    let metric = flame_metric(metric);
    let metrics = checked_metrics(a, b, &[metric])?;
    let mut table = Table::build(a, b, &metrics);
    if normalize {
        table.normalize();
    }
    let (na, nb) = (table.na as f64, table.nb as f64);
    let mut lines: Vec<FoldedLine> = (0..table.keys.len())
        .map(|row| {
            let v = table.row_values(0, row);
            FoldedLine {
                frames: table.key_names(row),
                a: v[..table.na].iter().sum::<f64>() / na,
                b: v[table.na..].iter().sum::<f64>() / nb,
            }
        })
        .collect();
    lines.sort_by(|x, y| x.frames.cmp(&y.frames));
    Ok(lines)
}

/// The factor and unit folded counts are written in: µs for times, µJ for
/// energy, parts per million of the run's total when normalised, else the
/// count itself.
pub fn folded_scale(metric: Metric, normalized: bool) -> (f64, &'static str) {
    if normalized {
        return (1e6, "ppm of the run's total");
    }
    match metric.kind() {
        MetricKind::Time => (1e-3, "µs"),
        MetricKind::Energy => (1e6, "µJ"),
        MetricKind::Count => (1.0, metric.name()),
    }
}

/// A frame name made safe for a folded line: `;` separates frames, so it
/// becomes `:`; line breaks and other control characters become spaces.
pub fn folded_frame(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            ';' => ':',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// Writes `stack countA countB` lines (whole numbers in the unit of
/// [`folded_scale`]); stacks whose two counts both round to 0 are left out.
pub fn write_folded(
    lines: &[FoldedLine],
    metric: Metric,
    normalized: bool,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let (scale, _) = folded_scale(flame_metric(metric), normalized);
    for l in lines {
        let (a, b) = ((l.a * scale).round(), (l.b * scale).round());
        if a == 0.0 && b == 0.0 {
            continue;
        }
        let stack: Vec<String> = l.frames.iter().map(|f| folded_frame(f)).collect();
        writeln!(out, "{} {a:.0} {b:.0}", stack.join(";"))?;
    }
    Ok(())
}

/// One frame of the differential flame graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlameNode {
    /// Frame name.
    pub name: String,
    /// Parent node (`None` for the root frames).
    pub parent: Option<u32>,
    /// The frame's own value in A (mean per run).
    pub self_a: f64,
    /// Its own value in B.
    pub self_b: f64,
    /// Its value with everything below it, in A.
    pub total_a: f64,
    /// The same in B.
    pub total_b: f64,
    /// The verdict of the comparison's row for this call path (rows by
    /// path) or this method (rows by method), when there is one.
    pub verdict: Option<Verdict>,
}

/// The tree a differential flame graph draws.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlameTree {
    /// The additive metric of the widths.
    pub metric: Metric,
    /// Values are shares of each run's total.
    pub normalized: bool,
    /// Frames, parents before children.
    pub nodes: Vec<FlameNode>,
}

impl FlameTree {
    /// Builds the tree of `lines`, marking each frame with the verdict of
    /// `report`'s row for the same call path (or, for rows by method, the
    /// same method) and a metric of the same family.
    pub fn new(lines: &[FoldedLine], metric: Metric, normalized: bool, report: Option<&DiffReport>) -> FlameTree {
        let metric = flame_metric(metric);
        let verdicts: FxHashMap<&[String], Verdict> = report
            .map(|r| {
                r.rows
                    .iter()
                    .filter(|row| row.metric.total_of() == metric)
                    .map(|row| (row.key.as_slice(), row.verdict))
                    .collect()
            })
            .unwrap_or_default();
        let by_method = report.is_some_and(|r| r.by != By::Path);
        let mut nodes: Vec<FlameNode> = Vec::new();
        let mut index: FxHashMap<(Option<u32>, &str), u32> = FxHashMap::default();
        for l in lines {
            let mut parent = None;
            for (depth, f) in l.frames.iter().enumerate() {
                let i = *index.entry((parent, f.as_str())).or_insert_with(|| {
                    let path = &l.frames[..=depth];
                    let verdict = if by_method {
                        verdicts.get(std::slice::from_ref(f)).copied()
                    } else {
                        verdicts.get(path).copied()
                    };
                    nodes.push(FlameNode {
                        name: f.clone(),
                        parent,
                        self_a: 0.0,
                        self_b: 0.0,
                        total_a: 0.0,
                        total_b: 0.0,
                        verdict,
                    });
                    nodes.len() as u32 - 1
                });
                parent = Some(i);
            }
            if let Some(leaf) = parent {
                let n = &mut nodes[leaf as usize];
                n.self_a += l.a;
                n.self_b += l.b;
            }
        }
        for n in &mut nodes {
            n.total_a = n.self_a;
            n.total_b = n.self_b;
        }
        // Children come after their parents: add totals upwards in reverse.
        for i in (0..nodes.len()).rev() {
            if let Some(p) = nodes[i].parent {
                let (ta, tb) = (nodes[i].total_a, nodes[i].total_b);
                nodes[p as usize].total_a += ta;
                nodes[p as usize].total_b += tb;
            }
        }
        FlameTree {
            metric,
            normalized,
            nodes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(label: &str, rows: &[(&[&str], f64)]) -> RunData {
        let mut r = RunData::new(label, By::Path, vec![Metric::ExclWall]);
        for (key, v) in rows {
            let k: Vec<u32> = key.iter().map(|f| r.frame(f)).collect();
            r.add(&k, &[*v]);
        }
        r
    }

    #[test]
    fn folded_lines_carry_means_and_the_tree_adds_up() {
        let a = [
            run("a1", &[(&["main"], 1000.0), (&["main", "f;x"], 4000.0)]),
            run("a2", &[(&["main"], 3000.0), (&["main", "f;x"], 4000.0)]),
        ];
        let b = [run("b1", &[(&["main"], 2000.0), (&["main", "g"], 1500.0)])];
        let lines = folded_lines(&a, &b, Metric::InclWall, false).unwrap();
        let mut out = Vec::new();
        write_folded(&lines, Metric::ExclWall, false, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "main 2 2\nmain;f:x 4 0\nmain;g 0 2\n");
        let tree = FlameTree::new(&lines, Metric::InclWall, false, None);
        assert_eq!(tree.metric, Metric::ExclWall);
        let root = &tree.nodes[0];
        assert_eq!(
            (root.name.as_str(), root.total_a, root.total_b),
            ("main", 6000.0, 3500.0)
        );
        assert_eq!((root.self_a, root.self_b), (2000.0, 2000.0));
        assert!(tree.nodes[1..].iter().all(|n| n.parent == Some(0)));
    }
}

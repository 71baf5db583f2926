//! The words and numbers both drawings show: node and edge labels, the
//! header lines, and how big a label is.

use crate::Caption;
use std::collections::HashMap;
use tracekit_analysis::{CallGraph, GraphEdge, GraphNode};
use tracekit_model::{Method, MethodId, Session};

/// Font size of labels (px); the SVG uses a monospace font so that a
/// label's width follows from its length.
pub const FONT_PX: f64 = 12.0;
/// Width of one character of that font (px), with a little to spare.
pub const CHAR_PX: f64 = 7.4;
/// Height of one label line (px).
pub const LINE_PX: f64 = 15.0;
/// Padding inside a node box (px).
pub const PAD_PX: f64 = 8.0;

/// A duration in ns with three or four significant digits and a unit.
pub fn duration(ns: u64) -> String {
    let v = ns as f64;
    let (x, unit) = if v >= 1e9 {
        (v / 1e9, "s")
    } else if v >= 1e6 {
        (v / 1e6, "ms")
    } else if v >= 1e3 {
        (v / 1e3, "µs")
    } else {
        return format!("{ns} ns");
    };
    let digits = if x >= 100.0 {
        1
    } else if x >= 10.0 {
        2
    } else {
        3
    };
    format!("{x:.digits$} {unit}")
}

/// A count with thousands separators.
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 call`, `2 calls`.
fn calls(n: u64) -> String {
    format!("{} call{}", count(n), if n == 1 { "" } else { "s" })
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".into();
    }
    let p = part as f64 * 100.0 / whole as f64;
    if p >= 10.0 || p == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// `Class.name` with only the class's own name (no package); `name` alone
/// for a free function.
fn short(m: &Method) -> String {
    let class = m.class.rsplit(['/', '.']).next().unwrap_or("");
    if class.is_empty() {
        m.name.clone()
    } else {
        format!("{class}.{}", m.name)
    }
}

/// A name per node: the short name, or the qualified name where short
/// names collide, or the full display name where those collide too.
pub fn node_names(g: &CallGraph, s: &Session) -> HashMap<MethodId, String> {
    let pick = |f: &dyn Fn(&Method) -> String, ids: &[MethodId]| -> HashMap<MethodId, String> {
        ids.iter().map(|&m| (m, f(s.methods.get(m)))).collect()
    };
    let ids: Vec<MethodId> = g.nodes.iter().map(|n| n.method).collect();
    let mut names = pick(&short, &ids);
    for level in [
        &Method::qualified_name as &dyn Fn(&Method) -> String,
        &Method::display_name,
    ] {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for n in names.values() {
            *seen.entry(n.as_str()).or_default() += 1;
        }
        let clash: Vec<MethodId> = ids.iter().copied().filter(|m| seen[names[m].as_str()] > 1).collect();
        for (m, name) in pick(level, &clash) {
            names.insert(m, name);
        }
    }
    names
}

/// The lines of a node's label.
pub fn node_lines(g: &CallGraph, n: &GraphNode, name: &str) -> Vec<String> {
    let t = g.node_time(n);
    let mut lines = vec![
        name.to_owned(),
        format!("{} · {} · {}", duration(t), percent(t, g.total_ns), calls(n.calls)),
    ];
    if let Some(w) = &n.when {
        let wt = g.share_time(w);
        lines.push(format!(
            "when: {} · {} · {}",
            duration(wt),
            percent(wt, t),
            calls(w.calls)
        ));
    }
    lines
}

/// An edge's label: its calls, and those made while the condition held.
pub fn edge_label(e: &GraphEdge) -> String {
    match &e.when {
        Some(w) => format!("{}× ({} when)", count(e.calls), count(w.calls)),
        None => format!("{}×", count(e.calls)),
    }
}

/// The size of a box holding these lines (px).
pub fn box_size(lines: &[String]) -> (f64, f64) {
    let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    (
        chars as f64 * CHAR_PX + 2.0 * PAD_PX,
        lines.len() as f64 * LINE_PX + PAD_PX,
    )
}

/// The header: what the graph shows, what is highlighted, what was pruned.
pub fn header(g: &CallGraph, c: &Caption) -> Vec<String> {
    let clock = if g.real_time { "real time" } else { "thread-CPU time" };
    let mut lines = vec![format!(
        "Call graph of {} — {} in calls ({clock}); boxes: inclusive time · share · calls; arrows: calls",
        c.name,
        duration(g.total_ns)
    )];
    if let (Some(cond), Some(w)) = (&c.condition, g.when_total_ns) {
        lines.push(format!(
            "Red: while {cond} held — {} ({} of the time in calls); \"when:\" gives each method's and call's share",
            duration(w),
            percent(w, g.total_ns)
        ));
    }
    lines.push(match g.pruned {
        Some(p) if p.nodes + p.edges > 0 => format!(
            "Pruned below {}% of the time: {} of {} methods and {} of {} edges left out",
            p.min_percent, p.nodes, p.nodes_before, p.edges, p.edges_before
        ),
        Some(p) if p.min_percent > 0.0 => {
            format!(
                "Nothing below {}% of the time: every method and call drawn",
                p.min_percent
            )
        }
        _ => "Every method and call drawn".to_owned(),
    });
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(duration(999), "999 ns");
        assert_eq!(duration(1_234_567), "1.235 ms");
        assert_eq!(duration(123_456_789), "123.5 ms");
        assert_eq!(duration(12_345_678_901), "12.35 s");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(percent(1, 3), "33%");
        assert_eq!(percent(1, 300), "0.3%");
        assert_eq!(short(&Method::new("org/a/Foo$Bar", "run", "()V")), "Foo$Bar.run");
        assert_eq!(short(&Method::new("", "main", "")), "main");
    }
}

//! The DOT text, for Graphviz users (`dot -Tsvg`). Nodes `n0`, `n1`, … in
//! the graph's order; the condition's share fills that part of a node
//! (Graphviz's `striped` style) and colours its edges red.

use crate::text::{edge_label, header, node_lines, node_names};
use crate::Caption;
use std::fmt::Write;
use tracekit_analysis::CallGraph;
use tracekit_model::Session;

/// Text inside a DOT double-quoted string: quotes and backslashes escaped,
/// control characters dropped (a `\n` escape is added only where meant).
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The call graph as DOT.
pub fn render_dot(g: &CallGraph, s: &Session, caption: &Caption) -> String {
    let names = node_names(g, s);
    let head = header(g, caption);
    let mut o = String::new();
    for h in &head {
        let _ = writeln!(o, "// {}", h.replace(['\n', '\r'], " "));
    }
    let _ = writeln!(o, "digraph callgraph {{");
    let label = head.iter().map(|h| quoted(h)).collect::<Vec<_>>().join("\\l");
    let _ = writeln!(
        o,
        "  graph [label=\"{label}\\l\", labelloc=t, labeljust=l, fontname=\"Helvetica\", fontsize=11];"
    );
    let _ = writeln!(
        o,
        "  node [shape=box, style=filled, fillcolor=\"#f4f5f8\", color=\"#8f98a8\", fontname=\"Helvetica\", fontsize=10];"
    );
    let _ = writeln!(o, "  edge [color=\"#8f98a8\", fontname=\"Helvetica\", fontsize=9];");
    let index: std::collections::HashMap<_, usize> = g.nodes.iter().enumerate().map(|(i, n)| (n.method, i)).collect();
    for (i, n) in g.nodes.iter().enumerate() {
        let lines = node_lines(g, n, &names[&n.method]);
        let text = lines.iter().map(|l| quoted(l)).collect::<Vec<_>>().join("\\n");
        let tip = quoted(&s.methods.get(n.method).display_name());
        let t = g.node_time(n);
        let mut attrs = format!("label=\"{text}\", tooltip=\"{tip}\"");
        if let Some(w) = n.when.as_ref().filter(|w| g.share_time(w) > 0) {
            // Weighted stripes must leave some weight to the last colour.
            let share = (g.share_time(w) as f64 / t.max(1) as f64).clamp(0.001, 0.999);
            let _ = write!(
                attrs,
                ", style=striped, fillcolor=\"#f7a59b;{share:.3}:#f4f5f8\", color=\"#d3202a\", penwidth=2"
            );
        }
        let _ = writeln!(o, "  n{i} [{attrs}];");
    }
    let max_edge = g.edges.iter().map(|e| g.edge_time(e)).max().unwrap_or(1).max(1) as f64;
    for e in &g.edges {
        let (a, b) = (index[&e.caller], index[&e.callee]);
        let width = 1.0 + 4.0 * (g.edge_time(e) as f64 / max_edge).sqrt();
        let mut attrs = format!("label=\"{}\", penwidth={width:.2}", quoted(&edge_label(e)));
        if e.when.as_ref().is_some_and(|w| g.share_time(w) > 0) {
            attrs.push_str(", color=\"#d3202a\", fontcolor=\"#d3202a\"");
        }
        let _ = writeln!(o, "  n{a} -> n{b} [{attrs}];");
    }
    o.push_str("}\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_cannot_end_early() {
        assert_eq!(quoted("a\"b\\c\nd"), "a\\\"b\\\\c d");
    }
}

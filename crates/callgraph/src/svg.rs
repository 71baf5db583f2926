//! The SVG drawing, laid out by [`crate::layout`].
//!
//! Every node is a `<g class="tk-node">` and every edge a
//! `<g class="tk-edge">` carrying its numbers as `data-` attributes (methods
//! by display name — `Class.name signature` —, ns and calls, `data-when-…`
//! for the condition's share) and a `<title>` tooltip, so tests and scripts
//! can read the drawing back.

use crate::layout::{layout, EdgePath};
use crate::text::{box_size, edge_label, header, node_lines, node_names, FONT_PX, LINE_PX, PAD_PX};
use crate::Caption;
use std::fmt::Write;
use tracekit_analysis::CallGraph;
use tracekit_model::Session;

const RED: &str = "#d3202a";
const GREY: &str = "#8f98a8";
/// Height of a header line (px).
const HEADER_LINE: f64 = 18.0;

/// Text made safe for XML: markup characters escaped, characters XML 1.0
/// forbids (most control characters) replaced.
pub(crate) fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A smooth path through the points: vertical tangents at each point.
fn curve(p: &EdgePath) -> String {
    let mut d = format!("M{:.1},{:.1}", p.points[0].0, p.points[0].1);
    if p.self_loop {
        let q = &p.points;
        let _ = write!(
            d,
            " C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
            q[1].0, q[1].1, q[2].0, q[2].1, q[3].0, q[3].1
        );
        return d;
    }
    for w in p.points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let dy = (b.1 - a.1) / 2.0;
        let _ = write!(
            d,
            " C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
            a.0,
            a.1 + dy,
            b.0,
            b.1 - dy,
            b.0,
            b.1
        );
    }
    d
}

/// The call graph as a standalone SVG document.
pub fn render_svg(g: &CallGraph, s: &Session, caption: &Caption) -> String {
    let names = node_names(g, s);
    let labels: Vec<Vec<String>> = g.nodes.iter().map(|n| node_lines(g, n, &names[&n.method])).collect();
    let sizes: Vec<(f64, f64)> = labels.iter().map(|l| box_size(l)).collect();
    let index: std::collections::HashMap<_, usize> = g.nodes.iter().enumerate().map(|(i, n)| (n.method, i)).collect();
    let edges: Vec<(usize, usize)> = g.edges.iter().map(|e| (index[&e.caller], index[&e.callee])).collect();
    let head = header(g, caption);
    let top = head.len() as f64 * HEADER_LINE + 8.0;
    let l = layout(&sizes, &edges, top);
    let head_width = head.iter().map(|h| h.chars().count()).max().unwrap_or(0) as f64 * 7.0 + 24.0;
    let (width, height) = (l.width.max(head_width), l.height);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="tk-callgraph" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT_PX}">"#
    );
    let _ = writeln!(o, "<title>{}</title>", xml(&head[0]));
    let _ = writeln!(
        o,
        r##"<defs><marker id="tk-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{GREY}"/></marker></defs>"##
    );
    let _ = writeln!(o, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    for (i, h) in head.iter().enumerate() {
        let class = match i {
            0 => "tk-title",
            _ if h.starts_with("Red:") => "tk-condition",
            _ => "tk-pruned",
        };
        let fill = if class == "tk-condition" { RED } else { "#222" };
        let _ = writeln!(
            o,
            r##"<text class="{class}" x="12" y="{:.1}" fill="{fill}" font-family="sans-serif" font-size="13">{}</text>"##,
            18.0 + i as f64 * HEADER_LINE,
            xml(h)
        );
    }
    // Edges first, so that boxes cover their ends.
    let max_edge = g.edges.iter().map(|e| g.edge_time(e)).max().unwrap_or(1).max(1) as f64;
    for (e, p) in g.edges.iter().zip(&l.edges) {
        let t = g.edge_time(e);
        let base = 1.0 + 4.0 * (t as f64 / max_edge).sqrt();
        let d = curve(p);
        let (caller, callee) = (&names[&e.caller], &names[&e.callee]);
        let _ = write!(
            o,
            r#"<g class="tk-edge{}" data-caller="{}" data-callee="{}" data-calls="{}" data-incl-ns="{}""#,
            if p.back { " tk-back" } else { "" },
            xml(&s.methods.get(e.caller).display_name()),
            xml(&s.methods.get(e.callee).display_name()),
            e.calls,
            t
        );
        if let Some(w) = &e.when {
            let _ = write!(
                o,
                r#" data-when-calls="{}" data-when-incl-ns="{}""#,
                w.calls,
                g.share_time(w)
            );
        }
        let _ = write!(
            o,
            "><title>{} → {}: {}</title>",
            xml(caller),
            xml(callee),
            xml(&edge_label(e))
        );
        let dash = if p.back { r#" stroke-dasharray="5 4""# } else { "" };
        let _ = write!(
            o,
            r#"<path class="tk-edge-line" d="{d}" fill="none" stroke="{GREY}" stroke-width="{base:.2}"{dash} marker-end="url(#tk-arrow)"/>"#
        );
        if let Some(w) = e.when.as_ref().filter(|w| g.share_time(w) > 0) {
            let share = g.share_time(w) as f64 / t.max(1) as f64;
            let _ = write!(
                o,
                r#"<path class="tk-edge-when" d="{d}" fill="none" stroke="{RED}" stroke-opacity="0.85" stroke-width="{:.2}"{dash}/>"#,
                (base * share).max(1.2)
            );
        }
        let _ = writeln!(
            o,
            r##"<text class="tk-edge-label" x="{:.1}" y="{:.1}" font-size="10" fill="#444" stroke="#fff" stroke-width="3" paint-order="stroke">{}</text></g>"##,
            p.label.0 + 4.0,
            p.label.1 + 3.0,
            xml(&edge_label(e))
        );
    }
    for ((n, b), lines) in g.nodes.iter().zip(&l.nodes).zip(&labels) {
        let t = g.node_time(n);
        let method = s.methods.get(n.method);
        let when = n.when.as_ref().map(|w| (g.share_time(w), w.calls));
        let lit = when.is_some_and(|(wt, _)| wt > 0);
        let _ = write!(
            o,
            r#"<g class="tk-node{}" data-method="{}" data-calls="{}" data-incl-ns="{}""#,
            if lit { " tk-lit" } else { "" },
            xml(&method.display_name()),
            n.calls,
            t
        );
        if let Some((wt, wc)) = when {
            let _ = write!(o, r#" data-when-calls="{wc}" data-when-incl-ns="{wt}""#);
        }
        let _ = write!(
            o,
            "><title>{}&#10;{}</title>",
            xml(&method.display_name()),
            xml(&lines[1..].join("\n"))
        );
        let _ = write!(
            o,
            r##"<rect class="tk-box" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="4" fill="#f4f5f8" stroke="{}" stroke-width="{}"/>"##,
            b.x,
            b.y,
            b.w,
            b.h,
            if lit { RED } else { GREY },
            if lit { 2 } else { 1 }
        );
        if let Some((wt, _)) = when.filter(|_| lit) {
            let share = (wt as f64 / t.max(1) as f64).min(1.0);
            let _ = write!(
                o,
                r##"<rect class="tk-when" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="4" fill="#f26b5b" fill-opacity="0.45"/>"##,
                b.x,
                b.y,
                b.w * share,
                b.h
            );
        }
        for (k, line) in lines.iter().enumerate() {
            let weight = if k == 0 { r#" font-weight="bold""# } else { "" };
            let fill = if k == 2 { RED } else { "#1d2430" };
            let _ = write!(
                o,
                r##"<text x="{:.1}" y="{:.1}" fill="{fill}"{weight}>{}</text>"##,
                b.x + PAD_PX,
                b.y + PAD_PX / 2.0 + LINE_PX * (k as f64 + 0.78),
                xml(line)
            );
        }
        o.push_str("</g>\n");
    }
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(xml("a<b>&\"'\u{1b}[31m"), "a&lt;b&gt;&amp;&quot;&apos;\u{FFFD}[31m");
    }
}

//! Self-rendered SVG of a [`Diagram`]: process boxes, lifeline heads,
//! dashed lifelines, one row per message.

use crate::diagram::{Diagram, MessageKind};

const COL: f64 = 170.0;
const ROW: f64 = 30.0;
const LEFT: f64 = 30.0;
const TOP: f64 = 40.0;
const HEAD_H: f64 = 44.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn x(i: usize) -> f64 {
    LEFT + COL * i as f64 + COL / 2.0
}

/// The diagram as a standalone SVG document.
pub fn svg(d: &Diagram) -> String {
    let n = d.participants.len().max(1);
    let width = LEFT * 2.0 + COL * n as f64;
    let first_row = TOP + HEAD_H + 30.0;
    let height = first_row + ROW * (d.messages.len() as f64 + 1.0) + 20.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker>\
         <marker id=\"open\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10\" fill=\"none\" stroke=\"black\"/></marker></defs>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    // Process boxes.
    let mut i = 0;
    while i < d.participants.len() {
        let pid = d.participants[i].pid;
        let mut j = i;
        while j < d.participants.len() && d.participants[j].pid == pid {
            j += 1;
        }
        let x0 = LEFT + COL * i as f64 + 4.0;
        let w = COL * (j - i) as f64 - 8.0;
        s.push_str(&format!(
            "<rect x=\"{x0}\" y=\"8\" width=\"{w}\" height=\"{}\" fill=\"#eef3fb\" stroke=\"#8aa\"/>\n<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-weight=\"bold\">process {pid}</text>\n",
            height - 16.0,
            x0 + w / 2.0
        ));
        i = j;
    }
    // Heads and lifelines.
    for (i, p) in d.participants.iter().enumerate() {
        let cx = x(i);
        let fill = if p.object_id.is_none() { "#ffffff" } else { "#fdf6d8" };
        s.push_str(&format!(
            "<rect x=\"{}\" y=\"{TOP}\" width=\"{}\" height=\"{HEAD_H}\" rx=\"4\" fill=\"{fill}\" stroke=\"black\"/>\n",
            cx - COL / 2.0 + 12.0,
            COL - 24.0
        ));
        for (k, line) in p.label().lines().enumerate() {
            s.push_str(&format!(
                "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                TOP + 18.0 + 16.0 * k as f64,
                esc(line)
            ));
        }
        s.push_str(&format!(
            "<line x1=\"{cx}\" y1=\"{}\" x2=\"{cx}\" y2=\"{}\" stroke=\"#666\" stroke-dasharray=\"4,4\"/>\n",
            TOP + HEAD_H,
            height - 20.0
        ));
    }
    // Messages.
    for (k, m) in d.messages.iter().enumerate() {
        let y = first_row + ROW * k as f64;
        let (x1, x2) = (x(m.from), x(m.to));
        let color = if m.deadlock { "#d00000" } else { "black" };
        let (dash, marker, label) = match m.kind {
            MessageKind::Call => ("", "arrow", m.label.clone()),
            MessageKind::AsyncCall => ("", "open", m.label.clone()),
            MessageKind::Return => (" stroke-dasharray=\"6,3\"", "open", String::new()),
            MessageKind::Create => ("", "arrow", "«create»".into()),
            MessageKind::Destroy => ("", "arrow", "«destroy»".into()),
        };
        if m.from == m.to {
            s.push_str(&format!(
                "<path d=\"M{x1},{y} h30 v12 h-30\" fill=\"none\" stroke=\"{color}\"{dash} marker-end=\"url(#{marker})\"/>\n"
            ));
        } else {
            s.push_str(&format!(
                "<line x1=\"{x1}\" y1=\"{y}\" x2=\"{x2}\" y2=\"{y}\" stroke=\"{color}\"{dash} marker-end=\"url(#{marker})\"/>\n"
            ));
        }
        if !label.is_empty() {
            let lx = (x1 + x2) / 2.0 + if m.from == m.to { 40.0 } else { 0.0 };
            s.push_str(&format!(
                "<text x=\"{lx}\" y=\"{}\" text-anchor=\"middle\" fill=\"{color}\">{}</text>\n",
                y - 4.0,
                esc(&label)
            ));
        }
        if m.kind == MessageKind::Destroy {
            s.push_str(&format!(
                "<path d=\"M{},{} l12,12 m0,-12 l-12,12\" stroke=\"black\" stroke-width=\"2\"/>\n",
                x2 - 6.0,
                y - 6.0
            ));
        }
        if m.deadlock {
            s.push_str(&format!(
                "<text x=\"{}\" y=\"{}\" fill=\"#d00000\" font-weight=\"bold\">deadlock</text>\n",
                x1.min(x2) + 4.0,
                y + 14.0
            ));
        }
    }
    s.push_str("</svg>\n");
    s
}

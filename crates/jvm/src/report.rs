//! Reports over decoded invocations: hot paths per method with source lines,
//! bits per invocation and per branch.

use std::collections::HashMap;
use std::fmt::Write;

use serde::Serialize;

use crate::decode::Decoded;
use crate::program::Program;

/// One frequent path of a method.
#[derive(Debug, Clone, Serialize)]
pub struct HotPath {
    /// Times this exact path ran.
    pub count: u64,
    /// The blocks.
    pub path: Vec<u32>,
    /// Source line ranges of the blocks, compressed (`12-14 15 12-14 …`).
    pub lines: String,
}

/// Per-method summary.
#[derive(Debug, Clone, Serialize)]
pub struct MethodReport {
    /// `class.name(descriptor)`.
    pub method: String,
    /// Source file.
    pub source: Option<String>,
    /// Invocations recorded.
    pub invocations: u64,
    /// Distinct paths.
    pub distinct_paths: u64,
    /// Trace bits spent on this method.
    pub bits: u64,
    /// Branch choices passed (visits of blocks with several out-edges).
    pub branches: u64,
    /// Most frequent paths first.
    pub hot_paths: Vec<HotPath>,
}

/// Number of branch choices in a decoded path (visits of blocks with more
/// than one out-edge, the virtual ENTRY excluded).
pub fn branch_count(program: &Program, method: usize, path: &[u32]) -> u64 {
    let cfg = &program.methods[method].cfg;
    path.iter().filter(|&&b| cfg.succs[b as usize + 1].len() > 1).count() as u64
}

/// Builds per-method reports, the methods with most trace bits first.
pub fn method_reports(program: &Program, decoded: &Decoded, top: usize) -> Vec<MethodReport> {
    /// Invocations, bits, branches and path counts of one method.
    type Tally<'a> = (u64, u64, u64, HashMap<&'a [u32], u64>);
    let mut per: HashMap<usize, Tally> = HashMap::new();
    for inv in &decoded.invocations {
        let e = per.entry(inv.method_id).or_default();
        e.0 += 1;
        e.1 += inv.bits;
        e.2 += branch_count(program, inv.method_id, &inv.path);
        *e.3.entry(&inv.path).or_default() += 1;
    }
    let mut out: Vec<MethodReport> = per
        .into_iter()
        .map(|(id, (n, bits, branches, paths))| {
            let m = &program.methods[id];
            let mut hot: Vec<(&[u32], u64)> = paths.iter().map(|(p, c)| (*p, *c)).collect();
            hot.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            MethodReport {
                method: m.display_name(),
                source: m.source.clone(),
                invocations: n,
                distinct_paths: hot.len() as u64,
                bits,
                branches,
                hot_paths: hot
                    .into_iter()
                    .take(top)
                    .map(|(p, c)| HotPath {
                        count: c,
                        path: p.to_vec(),
                        lines: path_lines(program, id, p),
                    })
                    .collect(),
            }
        })
        .collect();
    out.sort_by(|a, b| b.bits.cmp(&a.bits).then(a.method.cmp(&b.method)));
    out
}

/// Source lines of a path's blocks, consecutive duplicates merged.
pub fn path_lines(program: &Program, method: usize, path: &[u32]) -> String {
    let cfg = &program.methods[method].cfg;
    let mut parts: Vec<String> = Vec::new();
    for &b in path {
        let (a, z) = cfg.blocks[b as usize].lines;
        let s = if a == 0 {
            "?".to_string()
        } else if a == z {
            a.to_string()
        } else {
            format!("{a}-{z}")
        };
        if parts.last() != Some(&s) {
            parts.push(s);
        }
    }
    abbreviate(parts)
}

/// A path's block ids (`b3 b4 …`), as in `decode-log`.
pub fn path_blocks(path: &[u32]) -> String {
    abbreviate(path.iter().map(|b| format!("b{b}")).collect())
}

fn abbreviate(mut parts: Vec<String>) -> String {
    const MAX: usize = 24;
    if parts.len() > MAX {
        let n = parts.len();
        parts.truncate(MAX);
        parts.push(format!("… ({} more)", n - MAX));
    }
    parts.join(" ")
}

/// Renders the reports as text.
pub fn render(reports: &[MethodReport], decoded: &Decoded, limit: usize) -> String {
    let mut s = String::new();
    let invs = decoded.invocations.len().max(1) as f64;
    let branches: u64 = reports.iter().map(|r| r.branches).sum();
    let _ = writeln!(
        s,
        "{} invocations, {} bits ({:.1} bits/invocation, {:.3} bits/branch over {} branches)\n",
        decoded.invocations.len(),
        decoded.bits,
        decoded.bits as f64 / invs,
        decoded.bits as f64 / branches.max(1) as f64,
        branches
    );
    for r in reports.iter().take(limit) {
        // A method without branches still pays for its invocations (method
        // id and end in the context stream), but per branch means nothing.
        let per_branch = match r.branches {
            0 => "no branches".to_string(),
            b => format!("{:.3} bits/branch", r.bits as f64 / b as f64),
        };
        let _ = writeln!(
            s,
            "{}  [{}]  {} invocations, {} distinct paths, {:.1} bits/invocation, {per_branch}",
            r.method,
            r.source.as_deref().unwrap_or("?"),
            r.invocations,
            r.distinct_paths,
            r.bits as f64 / r.invocations as f64,
        );
        for h in &r.hot_paths {
            let _ = writeln!(
                s,
                "  {:>8}×  blocks {}\n             lines {}",
                h.count,
                path_blocks(&h.path),
                h.lines
            );
        }
    }
    s
}

//! Reports over decoded invocations: hot paths per method with source lines,
//! bits per invocation and per branch.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

/// Maps keyed by path keys ([`path_key`]), already hashes: a fast hasher
/// suffices, and SipHash cost 5% of a report.
type PathMap<V> = HashMap<u64, V, FxBuildHasher>;
use std::fmt::Write;

use serde::Serialize;

use crate::decode::{Decoding, Summary};
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

/// A path's key: a 64-bit hash of its blocks (collisions are negligible
/// for the paths of one method).
fn path_key(d: &Decoding) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64 ^ d.method as u64;
    for b in d.blocks() {
        h = (h ^ u64::from(b)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 32;
    }
    h ^ u64::from(d.aborted_after.is_some())
}

/// Per-method tallies of one pass over a log.
#[derive(Default)]
struct Tally {
    invocations: u64,
    bits: u64,
    branches: u64,
    /// Path key → count.
    paths: PathMap<u64>,
}

/// Blocks of first-seen paths kept during pass 1, at most (4 bytes each).
const KEPT_BLOCKS: usize = 1 << 24;

/// Builds the per-method reports while a log streams by, holding per
/// method one counter per distinct path (not the invocations): pass 1
/// ([`ReportBuilder::observe`]) counts and keeps the blocks of paths seen
/// first while a budget lasts; when a path to be shown was not kept, pass 2
/// ([`ReportBuilder::collect`]) fetches it.
pub struct ReportBuilder<'p> {
    program: &'p Program,
    top: usize,
    tallies: Vec<Tally>,
    kept: PathMap<Vec<u32>>,
    kept_blocks: usize,
    wanted: PathMap<Option<Vec<u32>>>,
}

impl<'p> ReportBuilder<'p> {
    /// A builder showing `top` hot paths per method.
    pub fn new(program: &'p Program, top: usize) -> Self {
        ReportBuilder {
            program,
            top,
            tallies: (0..program.methods.len()).map(|_| Tally::default()).collect(),
            kept: PathMap::default(),
            kept_blocks: 0,
            wanted: PathMap::default(),
        }
    }

    /// Pass 1: counts one invocation.
    pub fn observe(&mut self, d: &Decoding) {
        let t = &mut self.tallies[d.method];
        t.invocations += 1;
        t.bits += d.bits;
        let cfg = &self.program.methods[d.method].cfg;
        t.branches += d.blocks().filter(|&b| cfg.succs[b as usize + 1].len() > 1).count() as u64;
        let key = path_key(d);
        let count = t.paths.entry(key).or_default();
        *count += 1;
        if *count == 1 && self.kept_blocks < KEPT_BLOCKS {
            let p: Vec<u32> = d.blocks().collect();
            self.kept_blocks += p.len() + 4;
            self.kept.insert(key, p);
        }
    }

    /// Ends pass 1: true when a path to be shown was not kept (then run pass 2).
    pub fn start_collecting(&mut self) -> bool {
        for t in &self.tallies {
            for (k, _) in hot(&t.paths, self.top) {
                self.wanted.insert(k, self.kept.remove(&k));
            }
        }
        self.kept.clear();
        self.wanted.values().any(Option::is_none)
    }

    /// Pass 2: keeps the blocks of a path that will be shown.
    pub fn collect(&mut self, d: &Decoding) {
        if let Some(slot) = self.wanted.get_mut(&path_key(d)) {
            if slot.is_none() {
                *slot = Some(d.blocks().collect());
            }
        }
    }

    /// The reports, the methods with most trace bits first.
    pub fn finish(self) -> Vec<MethodReport> {
        let mut out: Vec<MethodReport> = self
            .tallies
            .iter()
            .enumerate()
            .filter(|(_, t)| t.invocations > 0)
            .map(|(id, t)| {
                let m = &self.program.methods[id];
                MethodReport {
                    method: m.display_name(),
                    source: m.source.clone(),
                    invocations: t.invocations,
                    distinct_paths: t.paths.len() as u64,
                    bits: t.bits,
                    branches: t.branches,
                    hot_paths: hot(&t.paths, self.top)
                        .into_iter()
                        .map(|(k, c)| {
                            let path = self.wanted.get(&k).cloned().flatten().unwrap_or_default();
                            HotPath {
                                count: c,
                                lines: path_lines(self.program, id, &path),
                                path,
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        out.sort_by(|a, b| b.bits.cmp(&a.bits).then(a.method.cmp(&b.method)));
        out
    }
}

/// The `top` most frequent path keys (ties by key, so the choice is stable).
fn hot(paths: &PathMap<u64>, top: usize) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = paths.iter().map(|(&k, &c)| (k, c)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(top);
    v
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
pub fn render(reports: &[MethodReport], summary: &Summary, limit: usize) -> String {
    let mut s = String::new();
    let invs = summary.invocations.max(1) as f64;
    let branches: u64 = reports.iter().map(|r| r.branches).sum();
    let _ = writeln!(
        s,
        "{} invocations, {} bits ({:.1} bits/invocation, {:.3} bits/branch over {} branches)\n",
        summary.invocations,
        summary.bits,
        summary.bits as f64 / invs,
        summary.bits as f64 / branches.max(1) as f64,
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

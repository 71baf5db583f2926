//! The runtime tables shipped inside an instrumented jar
//! (`tracekit/tables.txt`), read by the Java probe classes.
//!
//! Text, one row per line, space separated:
//! - header `scheme S width W inc I bound B methods N verify V stream S
//!   context C fp F` (`V` = 1: also record every block in a sidecar, see
//!   [`Config::verify`]; `stream 1`: AdapTracer stream mode, see
//!   [`Config::stream`]; `context 1`: context stream, see [`Config::context`];
//!   `F`: [`fingerprint`] of the rows that follow, copied into every log);
//! - per method `m ID NODES`, then `x` (next node on a fixed route to EXIT,
//!   per node, used to complete aborted invocations) and one `s` row per node
//!   listing its successors in out-edge order;
//! - scheme rows: BLPP `bi NODE incs…` and `br NODE resets…` (`-` for a plain
//!   edge), PAP `pr radix-per-node…` and `pi NODE in-edge-index-per-out-edge…`,
//!   AdapTracer `ab first-counter-per-node…` (`-1` for nodes without a choice)
//!   and `ac counters…`.

use std::collections::VecDeque;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::cfg::MethodCfg;
use crate::program::Program;

/// Path encoding scheme recorded by the probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Every node id, uncompressed (ground truth).
    Raw,
    /// Ball-Larus path numbering.
    Blpp,
    /// Profiling All Paths.
    Pap,
    /// Adaptive arithmetic coding (seed 003).
    Adaptracer,
}

impl Scheme {
    /// All schemes, ground truth first.
    pub const ALL: [Scheme; 4] = [Scheme::Raw, Scheme::Blpp, Scheme::Pap, Scheme::Adaptracer];

    /// Lower-case name as used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Raw => "raw",
            Scheme::Blpp => "blpp",
            Scheme::Pap => "pap",
            Scheme::Adaptracer => "adaptracer",
        }
    }

    /// Parses a scheme name.
    pub fn parse(s: &str) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// Instrumentation settings, stored with the program in the jar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Scheme the probes record.
    pub scheme: Scheme,
    /// PathID word width in bits.
    pub width: u32,
    /// AdapTracer counter increment.
    pub inc: u32,
    /// AdapTracer counter bound.
    pub bound: u32,
    /// Probes also record every node beside the scheme's trace, so decoding
    /// is checked against ground truth from the same run.
    #[serde(default)]
    pub verify: bool,
    /// AdapTracer stream mode: one coder per thread; each invocation's
    /// choices are coded when it finishes, so invocations follow each other
    /// in one word list per thread without per-invocation padding.
    #[serde(default)]
    pub stream: bool,
    /// Context stream (AdapTracer stream mode only): method ids, ends and
    /// choices all go through the thread's coder, predicted from the
    /// thread's event history (`tracekit_paths::context_stream`); records
    /// carry nothing outside the coder.
    #[serde(default)]
    pub context: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            scheme: Scheme::Raw,
            width: 64,
            inc: 3,
            bound: 65535,
            verify: false,
            stream: false,
            context: false,
        }
    }
}

impl Config {
    /// True when the probes write a context stream.
    pub fn is_context(&self) -> bool {
        self.context && self.stream && self.scheme == Scheme::Adaptracer
    }
}

/// Next node on a shortest route to EXIT, per node (EXIT maps to itself).
pub fn route_to_exit(cfg: &MethodCfg) -> Vec<u32> {
    route_to_exit_of(&cfg.succs, cfg.exit())
}

/// [`route_to_exit`] for any successor lists and exit node.
pub fn route_to_exit_of(succs: &[Vec<u32>], exit: u32) -> Vec<u32> {
    let n = succs.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (v, s) in succs.iter().enumerate() {
        for &w in s {
            preds[w as usize].push(v as u32);
        }
    }
    let mut next = vec![u32::MAX; n];
    next[exit as usize] = exit;
    let mut queue = VecDeque::from([exit]);
    while let Some(w) = queue.pop_front() {
        for &v in &preds[w as usize] {
            if next[v as usize] == u32::MAX {
                next[v as usize] = w;
                queue.push_back(v);
            }
        }
    }
    // Every node reaches EXIT by construction of the CFG; keep the table total anyway.
    next.iter().map(|&x| if x == u32::MAX { exit } else { x }).collect()
}

/// FNV-1a hash of the tables' rows: the fingerprint a log carries so that
/// it is decoded only against the jar that wrote it.
pub fn fingerprint(rows: &str) -> u64 {
    rows.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Writes the runtime tables; `scheme_rows` appends each method's scheme
/// rows. Returns the text and its fingerprint (also in its header).
pub fn write_tables(
    program: &Program,
    config: &Config,
    mut scheme_rows: impl FnMut(usize, &MethodCfg, &mut String),
) -> (String, u64) {
    let mut rows = String::new();
    for (id, m) in program.methods.iter().enumerate() {
        let cfg = &m.cfg;
        let _ = writeln!(rows, "m {id} {}", cfg.node_count());
        rows.push('x');
        for v in route_to_exit(cfg) {
            let _ = write!(rows, " {v}");
        }
        rows.push('\n');
        for s in &cfg.succs {
            rows.push('s');
            for w in s {
                let _ = write!(rows, " {w}");
            }
            rows.push('\n');
        }
        scheme_rows(id, cfg, &mut rows);
    }
    let fp = fingerprint(&rows);
    let out = format!(
        "scheme {} width {} inc {} bound {} methods {} verify {} stream {} context {} fp {fp}\n{rows}",
        config.scheme.name(),
        config.width,
        config.inc,
        config.bound,
        program.methods.len(),
        u8::from(config.verify),
        u8::from(config.stream && config.scheme == Scheme::Adaptracer),
        u8::from(config.is_context())
    );
    (out, fp)
}

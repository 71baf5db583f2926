//! The report of `tracekit energy --by process|thread|method [--json]`.
//! Fields may be added, never renamed or removed.

use crate::Attribution;
use serde::Serialize;
use tracekit_model::Session;

/// The split rule in one sentence, for reports.
pub const RULE: &str = "base power (idle) is set aside; the excess of each instant is shared among the threads running then, \
in proportion to their weight (1 per CPU running them, or that core's modelled power at its frequency; without scheduling \
data, each thread's CPU time over wall time); a thread's share goes to the method on top of its stack";

/// What the rows are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    /// One row per process.
    Process,
    /// One row per thread.
    Thread,
    /// One row per method (merged over threads).
    Method,
}

/// One row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Process, thread or method name.
    pub name: String,
    /// Process id (process and thread rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Thread id (thread rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tid: Option<u32>,
    /// Energy charged, J (exclusive energy for methods).
    pub energy_j: f64,
    /// Share of the measured energy, %.
    pub share_pct: f64,
    /// Inclusive energy, J (method rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incl_energy_j: Option<f64>,
    /// Inclusive share of the measured energy, % (method rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incl_energy_pct: Option<f64>,
    /// Calls that started in the window (method rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<u64>,
}

/// `tracekit energy --by … --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttributionReport {
    /// `process`, `thread` or `method`.
    pub by: By,
    /// Energy measured in the window, J.
    pub measured_j: f64,
    /// Base part (idle row), J.
    pub idle_j: f64,
    /// Excess no thread was charged, J.
    pub unattributed_j: f64,
    /// Excess charged to threads outside any call, J.
    pub outside_methods_j: f64,
    /// Energy charged to threads, J.
    pub attributed_j: f64,
    /// Base power, W.
    pub base_w: f64,
    /// How it was chosen.
    pub base_rule: String,
    /// `sched`, `thread-cpu clock` or `calls`.
    pub weights: &'static str,
    /// CPU weights followed frequency through a CPU model.
    pub frequency_weighted: bool,
    /// Time with power data inside the window, s.
    pub covered_s: f64,
    /// The split rule.
    pub rule: &'static str,
    /// Rows, most energy first.
    pub rows: Vec<Row>,
    /// Remarks.
    pub notes: Vec<String>,
}

impl AttributionReport {
    /// The report of `a` (computed on `s`) by `by`.
    pub fn new(s: &Session, a: &Attribution, by: By) -> AttributionReport {
        let pct = |e: f64| {
            if a.measured_j != 0.0 {
                100.0 * e / a.measured_j
            } else {
                0.0
            }
        };
        let rows = match by {
            By::Process => a
                .processes
                .iter()
                .map(|p| Row {
                    name: p.name.clone(),
                    pid: p.pid,
                    tid: None,
                    energy_j: p.energy_j,
                    share_pct: pct(p.energy_j),
                    incl_energy_j: None,
                    incl_energy_pct: None,
                    calls: None,
                })
                .collect(),
            By::Thread => a
                .threads
                .iter()
                .map(|t| {
                    let th = s.thread(t.thread);
                    Row {
                        name: th.label(),
                        pid: crate::pid_of(s, t.thread),
                        tid: Some(th.tid),
                        energy_j: t.energy_j,
                        share_pct: pct(t.energy_j),
                        incl_energy_j: None,
                        incl_energy_pct: None,
                        calls: None,
                    }
                })
                .collect(),
            By::Method => a
                .methods
                .iter()
                .map(|m| Row {
                    name: s.methods.get(m.method).display_name(),
                    pid: None,
                    tid: None,
                    energy_j: m.excl_j,
                    share_pct: pct(m.excl_j),
                    incl_energy_j: Some(m.incl_j),
                    incl_energy_pct: Some(pct(m.incl_j)),
                    calls: Some(m.calls),
                })
                .collect(),
        };
        AttributionReport {
            by,
            measured_j: a.measured_j,
            idle_j: a.idle_j,
            unattributed_j: a.unattributed_j,
            outside_methods_j: a.outside_methods_j,
            attributed_j: a.attributed_j(),
            base_w: a.base_w,
            base_rule: a.base_rule.clone(),
            weights: a.weights,
            frequency_weighted: a.frequency_weighted,
            covered_s: a.covered_ns as f64 * 1e-9,
            rule: RULE,
            rows,
            notes: a.notes.clone(),
        }
    }
}

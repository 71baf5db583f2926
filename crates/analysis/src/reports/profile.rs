//! `profile` and `calltree` reports.

use super::{us, us_if};
use crate::{CallTree, IntervalSet, Profile};
use serde::Serialize;
use tracekit_model::{MethodId, Session, ThreadId};

/// Traceview's profile (`tracekit profile --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileReport {
    /// `dual`, `wall` or `thread-cpu`.
    pub clock: &'static str,
    /// Length of the `--when` window, µs (`null` without one).
    pub window_us: Option<f64>,
    /// Total real time, µs.
    pub total_real_us: Option<f64>,
    /// Total thread-CPU time, µs.
    pub total_cpu_us: Option<f64>,
    /// One row per method, most inclusive time first.
    pub methods: Vec<MethodRow>,
    /// Per-thread profiles (`--per-thread` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<Vec<ThreadProfile>>,
    /// Where the energy columns come from (`--energy` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy: Option<ProfileEnergy>,
}

/// The energy behind a profile's energy columns (`profile --energy`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileEnergy {
    /// Energy measured (or modelled) in the profile's window, J: the base of
    /// the `…_energy_pct` columns.
    pub measured_j: f64,
    /// Base power's share, J (charged to no method).
    pub idle_j: f64,
    /// Excess while no thread ran, J.
    pub unattributed_j: f64,
    /// Excess charged to threads outside any call, J.
    pub outside_methods_j: f64,
    /// Base power, W.
    pub base_w: f64,
    /// Where the power came from.
    pub power_source: String,
    /// How threads were weighted (`sched`, `thread-cpu clock`, `calls`).
    pub weights: String,
}

/// One method of a [`ProfileReport`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodRow {
    /// Class (or module), as in the trace.
    pub class: String,
    /// Method name.
    pub name: String,
    /// Signature.
    pub signature: String,
    /// Calls (recursive ones included).
    pub calls: u64,
    /// Calls made while the method was already on the stack.
    pub recursive_calls: u64,
    /// Inclusive real time, µs.
    pub incl_real_us: Option<f64>,
    /// Exclusive real time, µs.
    pub excl_real_us: Option<f64>,
    /// Inclusive thread-CPU time, µs.
    pub incl_cpu_us: Option<f64>,
    /// Exclusive thread-CPU time, µs.
    pub excl_cpu_us: Option<f64>,
    /// Inclusive real time as a share of the total, %.
    pub incl_real_pct: Option<f64>,
    /// Inclusive CPU time as a share of the total, %.
    pub incl_cpu_pct: Option<f64>,
    /// Inclusive energy, J (`--energy` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incl_energy_j: Option<f64>,
    /// Exclusive energy, J (`--energy` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excl_energy_j: Option<f64>,
    /// Inclusive energy as a share of the measured energy, % (`--energy` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incl_energy_pct: Option<f64>,
    /// Exclusive energy as a share of the measured energy, % (`--energy` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excl_energy_pct: Option<f64>,
}

/// One thread's own profile in a [`ProfileReport`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadProfile {
    /// Thread id.
    pub tid: u32,
    /// Thread name.
    pub name: String,
    /// Its methods.
    pub methods: Vec<MethodRow>,
}

impl MethodRow {
    /// The rows of `p`, a profile of `s`.
    pub fn rows(s: &Session, p: &Profile) -> Vec<MethodRow> {
        let (real, cpu) = (s.clocks.wall, s.clocks.thread_cpu);
        p.methods
            .iter()
            .map(|r| {
                let m = s.methods.get(r.method);
                MethodRow {
                    class: m.class.clone(),
                    name: m.name.clone(),
                    signature: m.signature.clone(),
                    calls: r.calls,
                    recursive_calls: r.recursive_calls,
                    incl_real_us: us_if(real, r.incl_real_ns),
                    excl_real_us: us_if(real, r.excl_real_ns),
                    incl_cpu_us: us_if(cpu, r.incl_cpu_ns),
                    excl_cpu_us: us_if(cpu, r.excl_cpu_ns),
                    incl_real_pct: real.then(|| p.real_percent(r.incl_real_ns)),
                    incl_cpu_pct: cpu.then(|| p.cpu_percent(r.incl_cpu_ns)),
                    incl_energy_j: None,
                    excl_energy_j: None,
                    incl_energy_pct: None,
                    excl_energy_pct: None,
                }
            })
            .collect()
    }
}

impl ProfileReport {
    /// The report of profile `p` of `s`, made within `window` (if any), with
    /// the per-thread profiles `per_thread` when they were asked for.
    pub fn new(
        s: &Session,
        p: &Profile,
        window: Option<&IntervalSet>,
        per_thread: Option<&[(ThreadId, Profile)]>,
    ) -> ProfileReport {
        ProfileReport {
            clock: s.clocks.name(),
            window_us: window.map(|w| us(w.total().max(0) as u64)),
            total_real_us: us_if(s.clocks.wall, p.total_real_ns),
            total_cpu_us: us_if(s.clocks.thread_cpu, p.total_cpu_ns),
            methods: MethodRow::rows(s, p),
            threads: per_thread.map(|list| {
                list.iter()
                    .map(|(id, tp)| ThreadProfile {
                        tid: s.thread(*id).tid,
                        name: s.thread(*id).label(),
                        methods: MethodRow::rows(s, tp),
                    })
                    .collect()
            }),
            energy: None,
        }
    }

    /// Adds the energy columns: `energy(thread, method)` gives a method's
    /// inclusive and exclusive energy (J) on one thread (`None` = all of
    /// the profile's threads), shares are of `summary.measured_j`. `p` and
    /// `per_thread` are the profiles the report was made from.
    pub fn add_energy(
        &mut self,
        p: &Profile,
        per_thread: Option<&[(ThreadId, Profile)]>,
        energy: &dyn Fn(Option<ThreadId>, MethodId) -> Option<(f64, f64)>,
        summary: ProfileEnergy,
    ) {
        let total = summary.measured_j;
        let fill = |rows: &mut [MethodRow], prof: &Profile, thread: Option<ThreadId>| {
            for (row, r) in rows.iter_mut().zip(&prof.methods) {
                let (incl, excl) = energy(thread, r.method).unwrap_or((0.0, 0.0));
                let pct = |e: f64| if total != 0.0 { 100.0 * e / total } else { 0.0 };
                row.incl_energy_j = Some(incl);
                row.excl_energy_j = Some(excl);
                row.incl_energy_pct = Some(pct(incl));
                row.excl_energy_pct = Some(pct(excl));
            }
        };
        fill(&mut self.methods, p, None);
        if let (Some(threads), Some(list)) = (self.threads.as_mut(), per_thread) {
            for (tp, (id, prof)) in threads.iter_mut().zip(list) {
                fill(&mut tp.methods, prof, Some(*id));
            }
        }
        self.energy = Some(summary);
    }
}

/// One node of dmtracedump's call tree (`tracekit calltree --json`), with
/// its children nested.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallTreeReport {
    /// The method (`null` at the root).
    pub method: Option<String>,
    /// Calls of this path.
    pub calls: u64,
    /// Inclusive real time, µs.
    pub incl_real_us: f64,
    /// Exclusive real time, µs.
    pub excl_real_us: f64,
    /// Inclusive thread-CPU time, µs.
    pub incl_cpu_us: f64,
    /// Exclusive thread-CPU time, µs.
    pub excl_cpu_us: f64,
    /// Callees.
    pub children: Vec<CallTreeReport>,
}

impl CallTreeReport {
    /// The tree `t` of `s` down to `max_depth` levels below the root (all
    /// when `None`), keeping only the nodes `keep` accepts (and their
    /// ancestors' other kept children).
    pub fn new(s: &Session, t: &CallTree, max_depth: Option<usize>, keep: &dyn Fn(usize) -> bool) -> CallTreeReport {
        build(s, t, 0, 0, max_depth, keep)
    }
}

fn build(
    s: &Session,
    t: &CallTree,
    n: usize,
    depth: usize,
    max: Option<usize>,
    keep: &dyn Fn(usize) -> bool,
) -> CallTreeReport {
    let node = &t.nodes[n];
    let children = if max.is_none_or(|m| depth < m) {
        node.children
            .iter()
            .filter(|&&c| keep(c))
            .map(|&c| build(s, t, c, depth + 1, max, keep))
            .collect()
    } else {
        Vec::new()
    };
    CallTreeReport {
        method: node.method.map(|m| s.methods.get(m).display_name()),
        calls: node.calls,
        incl_real_us: us(node.incl_real_ns),
        excl_real_us: us(node.excl_real_ns),
        incl_cpu_us: us(node.incl_cpu_ns),
        excl_cpu_us: us(node.excl_cpu_ns),
        children,
    }
}

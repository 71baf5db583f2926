//! `profile` and `calltree` reports.

use super::{us, us_if};
use crate::{CallTree, IntervalSet, Profile};
use serde::Serialize;
use tracekit_model::{Session, ThreadId};

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
    /// Events lost while recording (a buffer was full): the counts and
    /// times miss them. 0 when nothing was lost.
    pub lost_events: u64,
    /// One row per method, most inclusive time first.
    pub methods: Vec<MethodRow>,
    /// Per-thread profiles (`--per-thread` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<Vec<ThreadProfile>>,
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
            lost_events: s.lost_events,
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
        }
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
    /// At the root only: events lost while recording (the counts and times
    /// miss them), when there were any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_events: Option<u64>,
}

impl CallTreeReport {
    /// The tree `t` of `s` down to `max_depth` levels below the root (all
    /// when `None`), keeping only the nodes `keep` accepts (and their
    /// ancestors' other kept children).
    pub fn new(s: &Session, t: &CallTree, max_depth: Option<usize>, keep: &dyn Fn(usize) -> bool) -> CallTreeReport {
        let mut root = build(s, t, 0, 0, max_depth, keep);
        root.lost_events = (s.lost_events > 0).then_some(s.lost_events);
        root
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
        lost_events: None,
    }
}

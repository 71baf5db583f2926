//! Measured (or modelled) power charged to what ran: processes, threads
//! and the methods of a method trace, each with its energy.
//!
//! This is analysis: it reads a [`Session`] and power samples (from
//! `tracekit-energy`'s [`EnergyIndex::power_samples`], or a power model's
//! track) and never a file.
//!
//! # The split rule
//! 1. **Base.** A base power `B` is set aside first: by default the 5th
//!    percentile of the power over the capture, weighted by time (the level
//!    the device does not go below while idle; [`BaseRule`]). At each
//!    instant `min(P, B)` goes to the *idle* row, never to a thread; only
//!    the excess `max(P − B, 0)` is shared.
//! 2. **Weights.** At each instant every thread has a weight:
//!    - with scheduling slices (systrace, Perfetto, a lined-up capture):
//!      the thread weighs 1 while a CPU runs it, or, when a CPU model is
//!      given ([`tracekit_powermodel::CorePower`], from a power profile or
//!      a fitted model), what one core of that CPU draws at its current
//!      frequency, so a thread on a fast big core carries more than one on
//!      a slow little core;
//!    - without them, from the method trace: the thread's CPU time over
//!      wall time between its consecutive events (its share of a CPU; a
//!      share below [`MIN_CPU_SHARE`] counts as 0, since a blocked
//!      thread's clock still creeps), or, for a trace without a
//!      thread-CPU clock, 1 while it is inside a call.
//! 3. **Split.** The excess of each instant is shared in proportion to the
//!    weights. When no thread has weight it is *unattributed*.
//! 4. **Methods.** A thread's share goes to the method on top of its stack
//!    (exclusive energy); inclusive energy of a call is what its thread was
//!    charged between its entry and exit, counted for outermost
//!    invocations only (as inclusive time is). A thread's share while no
//!    call is open is *outside methods*.
//!
//! Hence, over any window: Σ exclusive energies + idle + unattributed +
//! outside methods = the measured energy (to float rounding; tested at
//! 1e-9 relative).
//!
//! `Options::window` restricts everything to the intervals where a
//! condition holds; calls count where they start.
//!
//! # More
//! - [`bins`]: the charges per time bin, per process or thread, for a
//!   stacked power view;
//! - [`context`]: which context items go with high power (ranked hints);
//! - [`calls`]: each call's inclusive energy, attached to the viewer's
//!   call slices;
//! - [`report`]: the JSON report of `tracekit energy --by`.

pub mod bins;
pub mod calls;
pub mod context;
mod curve;
pub mod report;
mod sweep;

pub use curve::{time_weighted_quantile, SplitCurve};
pub use tracekit_energy::{EnergyIndex, PowerSamples};

use serde::Serialize;
use tracekit_analysis::IntervalSet;
use tracekit_model::{MethodId, Session, ThreadId};
use tracekit_powermodel::CorePower;

/// A thread whose CPU time grows by less than this share of the wall time
/// between two of its events is taken as blocked (weight 0).
pub const MIN_CPU_SHARE: f64 = 0.01;

/// How the base power is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BaseRule {
    /// This quantile (0–1) of the power, weighted by time.
    Quantile(f64),
    /// A given power, W.
    Watts(f64),
}

impl Default for BaseRule {
    fn default() -> BaseRule {
        BaseRule::Quantile(0.05)
    }
}

/// Where thread weights come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WeightSource {
    /// Scheduling slices when the session has any, else the method trace.
    #[default]
    Auto,
    /// Scheduling slices.
    Sched,
    /// The method trace's clocks.
    Calls,
}

/// What to compute.
#[derive(Default)]
pub struct Options<'a> {
    /// The base power.
    pub base: BaseRule,
    /// Only these intervals (ns on the session's timeline).
    pub window: Option<IntervalSet>,
    /// Where weights come from.
    pub weights: WeightSource,
    /// A CPU model, for frequency weights (scheduling slices only).
    pub cpu_power: Option<&'a dyn CorePower>,
    /// Per-method energies.
    pub methods: bool,
    /// Each thread's cumulative energy at each of its call events (for
    /// [`calls`]).
    pub record_calls: bool,
    /// Number of time bins for [`bins`] (0 = none).
    pub bins: usize,
}

/// One method's energy (on one thread, or merged over threads).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodEnergy {
    /// The method.
    #[serde(skip)]
    pub method: MethodId,
    /// Inclusive energy, J (outermost invocations).
    pub incl_j: f64,
    /// Exclusive energy, J.
    pub excl_j: f64,
    /// Calls that started inside the window.
    pub calls: u64,
}

/// One thread's energy.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadEnergy {
    /// The thread.
    pub thread: ThreadId,
    /// Energy charged to it, J.
    pub energy_j: f64,
    /// Its methods, most exclusive energy first (empty without `methods`).
    pub methods: Vec<MethodEnergy>,
}

/// One process's energy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessEnergy {
    /// Process id (`None`: threads of no known process).
    pub pid: Option<u32>,
    /// Its name, when known.
    pub name: String,
    /// Energy charged to its threads, J.
    pub energy_j: f64,
    /// Threads that were charged something.
    pub threads: usize,
}

/// The result of [`attribute`].
#[derive(Debug, Clone)]
pub struct Attribution {
    /// Energy measured inside the window, J.
    pub measured_j: f64,
    /// The base part, J.
    pub idle_j: f64,
    /// Excess while no thread had weight, J.
    pub unattributed_j: f64,
    /// Excess charged to threads while they had no call open, J.
    pub outside_methods_j: f64,
    /// The base power, W.
    pub base_w: f64,
    /// How the base power was chosen.
    pub base_rule: String,
    /// Where weights came from: `sched`, `thread-cpu clock` or `calls`.
    pub weights: &'static str,
    /// Whether CPU weights followed frequency through a CPU model.
    pub frequency_weighted: bool,
    /// Time inside the window with power data, ns.
    pub covered_ns: i64,
    /// Threads charged something, most energy first.
    pub threads: Vec<ThreadEnergy>,
    /// Processes, most energy first.
    pub processes: Vec<ProcessEnergy>,
    /// Methods merged over threads (inclusive energies add up across
    /// threads), most exclusive energy first.
    pub methods: Vec<MethodEnergy>,
    /// Per thread (session order), the thread's cumulative energy at each
    /// of its call events (with `record_calls`).
    pub call_cumulative: Option<Vec<Vec<f64>>>,
    /// Per-bin charges (with `bins`).
    pub bins: Option<bins::Bins>,
    /// Remarks for the user.
    pub notes: Vec<String>,
}

impl Attribution {
    /// Energy charged to threads, J.
    pub fn attributed_j(&self) -> f64 {
        self.threads.iter().map(|t| t.energy_j).sum()
    }

    /// Σ exclusive method energies + idle + unattributed + outside methods,
    /// which equals [`Attribution::measured_j`] up to rounding. Without
    /// per-method energies ([`Options::methods`] off) the threads' energy
    /// inside calls stands for the methods' sum.
    pub fn accounted_j(&self) -> f64 {
        let in_methods = if self.methods.is_empty() {
            self.attributed_j() - self.outside_methods_j
        } else {
            self.methods.iter().map(|m| m.excl_j).sum::<f64>()
        };
        in_methods + self.idle_j + self.unattributed_j + self.outside_methods_j
    }

    /// The merged row of `method`.
    pub fn method(&self, method: MethodId) -> Option<&MethodEnergy> {
        self.methods.iter().find(|m| m.method == method)
    }
}

/// Charges `power` to what ran in `session` under the rule of the crate docs.
pub fn attribute(session: &Session, power: &PowerSamples, o: &Options<'_>) -> Attribution {
    let mut notes = Vec::new();
    let (base_w, base_rule) = match o.base {
        BaseRule::Watts(w) => (w, format!("given: {w} W")),
        BaseRule::Quantile(q) => {
            let b = time_weighted_quantile(power, q).unwrap_or(0.0).max(0.0);
            (
                b,
                format!("the {:.0}th percentile of the power, weighted by time", q * 100.0),
            )
        }
    };
    let curve = SplitCurve::new(power, base_w);
    let use_sched = match o.weights {
        WeightSource::Sched => true,
        WeightSource::Calls => false,
        WeightSource::Auto => !session.sched.is_empty(),
    };
    let cpu_clock = session.clocks.thread_cpu && session.thread_calls().any(|(_, _, c)| c.has_cpu());
    let mode = if use_sched {
        sweep::Mode::Sched
    } else {
        sweep::Mode::Calls { cpu_clock }
    };
    if use_sched {
        let with_calls = session.thread_calls().filter(|(_, _, c)| !c.is_empty()).count();
        let scheduled = session
            .thread_calls()
            .filter(|(id, _, c)| !c.is_empty() && session.sched.iter().any(|x| x.thread == *id))
            .count();
        if with_calls > scheduled {
            notes.push(format!(
                "{} thread(s) with calls never appear in the scheduling data and are charged nothing",
                with_calls - scheduled
            ));
        }
    }
    if o.cpu_power.is_some() && !use_sched {
        notes.push("a CPU model weights threads only with scheduling data; the method trace's clocks were used".into());
    }
    let bins = (o.bins > 0)
        .then(|| {
            let (a, b) = curve.span()?;
            let n = o.bins as i64;
            let width = ((b - a + n - 1) / n).max(1);
            Some((a, width, o.bins))
        })
        .flatten();
    let out = sweep::run(&sweep::Input {
        session,
        curve: &curve,
        window: o.window.as_ref(),
        mode,
        cpu_power: if use_sched { o.cpu_power } else { None },
        methods: o.methods,
        record_calls: o.record_calls,
        bins,
    });
    let mut threads: Vec<ThreadEnergy> = out
        .thread_j
        .iter()
        .enumerate()
        .filter(|(i, &e)| e != 0.0 || !out.methods.get(*i).is_none_or(Vec::is_empty))
        .map(|(i, &e)| {
            let mut methods: Vec<MethodEnergy> = out.methods[i]
                .iter()
                .map(|&(m, a)| MethodEnergy {
                    method: MethodId(m),
                    incl_j: a.incl,
                    excl_j: a.excl,
                    calls: a.calls,
                })
                .collect();
            methods.sort_by(|a, b| b.excl_j.total_cmp(&a.excl_j).then(a.method.cmp(&b.method)));
            ThreadEnergy {
                thread: ThreadId(i as u32),
                energy_j: e,
                methods,
            }
        })
        .collect();
    threads.sort_by(|a, b| b.energy_j.total_cmp(&a.energy_j).then(a.thread.cmp(&b.thread)));
    let mut merged: Vec<MethodEnergy> = Vec::new();
    let mut slot: rustc_hash::FxHashMap<u32, usize> = Default::default();
    for t in &threads {
        for m in &t.methods {
            let k = *slot.entry(m.method.0).or_insert_with(|| {
                merged.push(MethodEnergy {
                    method: m.method,
                    incl_j: 0.0,
                    excl_j: 0.0,
                    calls: 0,
                });
                merged.len() - 1
            });
            merged[k].incl_j += m.incl_j;
            merged[k].excl_j += m.excl_j;
            merged[k].calls += m.calls;
        }
    }
    merged.sort_by(|a, b| b.excl_j.total_cmp(&a.excl_j).then(a.method.cmp(&b.method)));
    let processes = processes_of(session, &threads);
    let bins = out
        .bins
        .map(|raw| bins::Bins::from_raw(session, raw, bins.expect("bins asked for")));
    Attribution {
        measured_j: out.measured_j,
        idle_j: out.idle_j,
        unattributed_j: out.unattributed_j,
        outside_methods_j: out.outside_methods_j,
        base_w,
        base_rule,
        weights: match mode {
            sweep::Mode::Sched => "sched",
            sweep::Mode::Calls { cpu_clock: true } => "thread-cpu clock",
            sweep::Mode::Calls { cpu_clock: false } => "calls",
        },
        frequency_weighted: use_sched && o.cpu_power.is_some(),
        covered_ns: out.covered_ns,
        threads,
        processes,
        methods: merged,
        call_cumulative: out.call_cum,
        bins,
        notes,
    }
}

/// The process of thread `t`: its pid, or, in a method trace (no
/// scheduling data: one app's threads), the session's only process.
pub(crate) fn pid_of(session: &Session, t: ThreadId) -> Option<u32> {
    session.thread(t).pid.or(match session.processes.as_slice() {
        [only] if session.sched.is_empty() => Some(only.pid),
        _ => None,
    })
}

fn processes_of(session: &Session, threads: &[ThreadEnergy]) -> Vec<ProcessEnergy> {
    let mut out: Vec<ProcessEnergy> = Vec::new();
    for t in threads {
        let pid = pid_of(session, t.thread);
        let p = match out.iter_mut().position(|p| p.pid == pid) {
            Some(i) => &mut out[i],
            None => {
                let name = pid
                    .and_then(|p| session.processes.iter().find(|x| x.pid == p))
                    .map(|x| x.name.clone())
                    .or_else(|| {
                        // A thread whose tid is its pid names the process.
                        pid.and_then(|p| session.threads.iter().find(|x| x.tid == p).map(|x| x.label()))
                    })
                    .unwrap_or_else(|| pid.map_or("(no process)".to_owned(), |p| format!("pid {p}")));
                out.push(ProcessEnergy {
                    pid,
                    name,
                    energy_j: 0.0,
                    threads: 0,
                });
                out.last_mut().expect("just pushed")
            }
        };
        p.energy_j += t.energy_j;
        p.threads += 1;
    }
    out.sort_by(|a, b| b.energy_j.total_cmp(&a.energy_j).then(a.pid.cmp(&b.pid)));
    out
}

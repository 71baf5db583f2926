//! Repeated runs of one synthetic program, for comparing runs (`tracekit
//! diff`): the same call structure every run, with the noise real
//! measurements have, and changes planted in side B.
//!
//! The program is a random tree of methods (drawn from [`RunsSpec::seed`]):
//! each method calls its children a fixed number of times, and `main` loops
//! over its children until the run has about [`RunsSpec::calls`] calls, so
//! call counts are the same in every run (a deterministic program). Each
//! method has a base exclusive cost per call (log-uniform, 2–200 µs) and a
//! fixed share of it spent on the CPU. A call's exclusive time is
//!
//! `base × run factor × method factor × call jitter × planted change`
//!
//! where the run factor (the machine's speed that run, shared by every
//! method), the method factor (per method and run) and the call jitter (per
//! call) are log-normal with median 1 and the spreads in the spec, and the
//! planted change is [`RunsSpec::changes`]' factor for that method in side
//! B (1 otherwise). Each run also lists its methods in a different order,
//! so method ids differ between the files, as they do between real traces.
//!
//! The generator acts the runs out; it computes no comparison.
//!
//! ```
//! use tracekit_example::runs::{program_run, RunsSpec, Side};
//! let spec = RunsSpec { methods: 20, calls: 500, ..RunsSpec::default() };
//! let s = program_run(&spec, Side::A, 0);
//! assert!(s.call_event_count() >= 2 * 500);
//! assert_eq!(s.methods.len(), 20);
//! ```

use crate::rng::Rng;
use tracekit_model::{CallEvent, Clocks, Method, MethodId, Session, Thread};

/// Which side of a comparison a run belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Before the change.
    A,
    /// After the change: [`RunsSpec::changes`] apply.
    B,
}

/// The program and its noise.
#[derive(Debug, Clone, PartialEq)]
pub struct RunsSpec {
    /// Seed of the program's structure and of every run's noise.
    pub seed: u64,
    /// Number of methods (method 0 is `main`).
    pub methods: usize,
    /// Calls per run, at least (whole iterations of `main`'s loop).
    pub calls: usize,
    /// σ of the log-normal run factor (whole-run speed).
    pub run_sigma: f64,
    /// σ of the log-normal factor per method and run.
    pub method_sigma: f64,
    /// σ of the log-normal jitter of each call.
    pub call_sigma: f64,
    /// Planted changes in side B: (method index, factor on its exclusive
    /// cost), e.g. `(7, 1.10)` for +10%.
    pub changes: Vec<(usize, f64)>,
}

impl Default for RunsSpec {
    fn default() -> RunsSpec {
        RunsSpec {
            seed: 14,
            methods: 50,
            calls: 5_000,
            run_sigma: 0.02,
            method_sigma: 0.01,
            call_sigma: 0.25,
            changes: Vec::new(),
        }
    }
}

/// The method of index `i` as traces name it.
pub fn method(i: usize) -> Method {
    if i == 0 {
        return Method::new("com/example/synth/Main", "main", "([Ljava/lang/String;)V");
    }
    let sig = ["()V", "(I)V", "(Ljava/lang/String;)I", "(JJ)J"][i % 4];
    Method::new(format!("com/example/synth/C{}", i / 16), format!("m{i}"), sig)
}

struct Program {
    /// Per method: (child, times called per invocation).
    children: Vec<Vec<(usize, u32)>>,
    base_ns: Vec<f64>,
    cpu_share: Vec<f64>,
    /// Iterations of `main`'s loop.
    iterations: u64,
}

impl Program {
    fn new(spec: &RunsSpec) -> Program {
        let n = spec.methods.max(2);
        let mut rng = Rng::new(spec.seed ^ 0x005E_ED0F_C0DE);
        let mut children = vec![Vec::new(); n];
        for i in 1..n {
            // A random recursive tree: shallow (depth about ln n), and most
            // calls made once per invocation of the caller.
            let parent = rng.int(0, i as u64 - 1) as usize;
            let times = match rng.unit() {
                u if u < 0.7 => 1,
                u if u < 0.9 => 2,
                _ => 3,
            };
            children[parent].push((i, times));
        }
        let base_ns = (0..n).map(|_| 1000.0 * 2.0 * 100f64.powf(rng.unit())).collect();
        let cpu_share = (0..n).map(|_| rng.range(0.5, 1.0)).collect();
        // Calls of one iteration of main's loop (main itself excluded).
        fn calls_below(children: &[Vec<(usize, u32)>], m: usize) -> u64 {
            children[m]
                .iter()
                .map(|&(c, k)| u64::from(k) * (1 + calls_below(children, c)))
                .sum()
        }
        let per_iteration = calls_below(&children, 0).max(1);
        Program {
            iterations: (spec.calls as u64).div_ceil(per_iteration).max(1),
            children,
            base_ns,
            cpu_share,
        }
    }
}

struct Runner<'a> {
    p: &'a Program,
    ids: Vec<MethodId>,
    factor: Vec<f64>,
    call_sigma: f64,
    rng: Rng,
    now: f64,
    cpu: f64,
    events: Vec<CallEvent>,
}

impl Runner<'_> {
    fn stamp(&self) -> (u64, Option<u64>) {
        (self.now as u64, Some(self.cpu as u64))
    }

    fn work(&mut self, m: usize, ns: f64) {
        self.now += ns;
        self.cpu += ns * self.p.cpu_share[m];
    }

    fn call(&mut self, m: usize) {
        let (t, c) = self.stamp();
        self.events.push(CallEvent::enter(self.ids[m], t, c));
        let own = self.p.base_ns[m] * self.factor[m] * self.rng.log_normal(self.call_sigma);
        self.work(m, own / 2.0);
        let p = self.p;
        let loops = if m == 0 { p.iterations } else { 1 };
        for _ in 0..loops {
            for &(child, times) in &p.children[m] {
                for _ in 0..times {
                    self.call(child);
                }
            }
        }
        self.work(m, own / 2.0);
        let (t, c) = self.stamp();
        self.events.push(CallEvent::exit(self.ids[m], t, c));
    }
}

/// Run number `run` of `side`: one thread, dual clock, every call
/// balanced. Equal arguments give the equal session.
pub fn program_run(spec: &RunsSpec, side: Side, run: u32) -> Session {
    let program = Program::new(spec);
    let n = program.base_ns.len();
    let side_bits = match side {
        Side::A => 0xA,
        Side::B => 0xB,
    };
    let mut rng = Rng::new(
        spec.seed
            .wrapping_mul(0x9E37_79B9)
            .wrapping_add(side_bits << 32 | u64::from(run)),
    );
    let mut s = Session::new(format!("run-{side:?}-{run}"), Clocks::DUAL);
    s.anchor_unix_ns = Some(crate::START_UNIX_US * 1000);
    let t = s.add_thread(Thread::new(1, "main"));
    // The method table in a different order in every run.
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.int(0, i as u64) as usize);
    }
    let mut ids = vec![MethodId(0); n];
    for &i in &order {
        ids[i] = s.methods.intern(method(i));
    }
    let run_factor = rng.log_normal(spec.run_sigma);
    let factor: Vec<f64> = (0..n)
        .map(|i| {
            let planted = match side {
                Side::B => spec.changes.iter().filter(|c| c.0 == i).map(|c| c.1).product(),
                Side::A => 1.0,
            };
            run_factor * rng.log_normal(spec.method_sigma) * planted
        })
        .collect();
    let mut runner = Runner {
        p: &program,
        ids,
        factor,
        call_sigma: spec.call_sigma,
        rng,
        now: 0.0,
        cpu: 0.0,
        events: Vec::new(),
    };
    runner.call(0);
    let calls = s.calls_mut(t);
    for e in runner.events {
        calls.push(e);
    }
    s.duration_ns = Some(runner.now as u64);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_repeat_the_calls_and_vary_the_times() {
        let spec = RunsSpec {
            methods: 30,
            calls: 2000,
            ..RunsSpec::default()
        };
        let a0 = program_run(&spec, Side::A, 0);
        let a0_again = program_run(&spec, Side::A, 0);
        let a1 = program_run(&spec, Side::A, 1);
        assert_eq!(
            a0.calls(tracekit_model::ThreadId(0)),
            a0_again.calls(tracekit_model::ThreadId(0))
        );
        assert_eq!(a0.call_event_count(), a1.call_event_count());
        assert!(a0.call_event_count() >= 4000);
        assert_ne!(a0.duration_ns, a1.duration_ns);
        // Ids differ between runs, names do not.
        let id_of = |s: &Session, i: usize| s.methods.iter().find(|(_, m)| **m == method(i)).unwrap().0;
        assert!((0..30).any(|i| id_of(&a0, i) != id_of(&a1, i)));
    }
}

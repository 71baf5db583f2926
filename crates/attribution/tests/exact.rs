//! Sessions whose right answer is known by construction: methods that
//! each draw a known constant power are charged exactly that; two threads
//! running at once on two CPUs split as the rule says, with and without a
//! CPU model; a window restricts the charges; the base never reaches a
//! thread.

use tracekit_analysis::IntervalSet;
use tracekit_attribution::{attribute, BaseRule, Options, PowerSamples, WeightSource};
use tracekit_energy::curve::Rule;
use tracekit_model::{CallEvent, Clocks, Method, MethodId, SchedSlice, Session, Thread, ThreadId};
use tracekit_powermodel::CorePower;

const S: u64 = 1_000_000_000;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-12)
}

/// main() { a() [0.5 W for 2 s]; b() { c() [3 W for 1 s] } [b itself 1 W for 1 s + 0.5 s]; } idle 1 s
/// Base 0.2 W throughout. Times in s: main [0, 7), a [1, 3), b [3, 5.5) with c [4, 5).
fn one_thread(rule: Rule) -> (Session, PowerSamples, [MethodId; 4]) {
    let mut s = Session::new("exact", Clocks::WALL);
    let t = s.add_thread(Thread::new(1, "main"));
    let ids = ["main", "a", "b", "c"].map(|n| s.methods.intern(Method::new("App", n, "()V")));
    let [main, a, b, c] = ids;
    for e in [
        CallEvent::enter(main, 0, None),
        CallEvent::enter(a, S, None),
        CallEvent::exit(a, 3 * S, None),
        CallEvent::enter(b, 3 * S, None),
        CallEvent::enter(c, 4 * S, None),
        CallEvent::exit(c, 5 * S, None),
        CallEvent::exit(b, 11 * S / 2, None),
        CallEvent::exit(main, 7 * S, None),
    ] {
        s.calls_mut(t).push(e);
    }
    // (from, to, excess W above the 0.2 W base) of what is on top.
    let pieces = [
        (0, S, 0.1),              // main
        (S, 3 * S, 0.5),          // a
        (3 * S, 4 * S, 1.0),      // b
        (4 * S, 5 * S, 3.0),      // c
        (5 * S, 11 * S / 2, 1.0), // b
        (11 * S / 2, 7 * S, 0.1), // main
        (7 * S, 8 * S, 0.0),      // nothing runs
    ];
    let (mut times, mut watts) = (Vec::new(), Vec::new());
    for (a, b, x) in pieces {
        match rule {
            Rule::LeftHold => {
                times.push(a as i64);
                watts.push(0.2 + x);
            }
            _ => {
                // Constant pieces as a trapezoid: both ends of each piece.
                times.extend([a as i64, b as i64]);
                watts.extend([0.2 + x, 0.2 + x]);
            }
        }
    }
    if rule == Rule::LeftHold {
        times.push(8 * S as i64);
        watts.push(0.2);
    }
    (s, PowerSamples { times, watts, rule }, ids)
}

#[test]
fn constant_power_per_method_is_charged_exactly() {
    for rule in [Rule::LeftHold, Rule::Trapezoid] {
        let (s, p, [main, a, b, c]) = one_thread(rule);
        let at = attribute(
            &s,
            &p,
            &Options {
                base: BaseRule::Watts(0.2),
                methods: true,
                ..Options::default()
            },
        );
        let m = |id| at.method(id).unwrap().clone();
        assert!(close(m(a).excl_j, 1.0), "{rule:?} a {:?}", m(a));
        assert!(close(m(c).excl_j, 3.0), "{rule:?} c {:?}", m(c));
        assert!(close(m(b).excl_j, 1.5), "{rule:?} b {:?}", m(b));
        assert!(close(m(main).excl_j, 0.1 + 0.15), "{rule:?} main {:?}", m(main));
        assert!(close(m(b).incl_j, 4.5));
        assert!(close(m(main).incl_j, 0.25 + 1.0 + 4.5));
        assert!(close(at.idle_j, 0.2 * 8.0), "{}", at.idle_j);
        assert!(close(at.measured_j, 1.6 + 5.75));
        assert_eq!(at.unattributed_j, 0.0, "the power after main returns is base only");
        assert!(close(at.accounted_j(), at.measured_j));
        assert_eq!(at.weights, "calls");
        assert_eq!(m(a).calls, 1);
    }
}

#[test]
fn a_window_restricts_the_charges() {
    let (s, p, [main, _, b, c]) = one_thread(Rule::LeftHold);
    let window = IntervalSet::single((9 * S / 2) as i64, 6 * S as i64);
    let at = attribute(
        &s,
        &p,
        &Options {
            base: BaseRule::Watts(0.2),
            methods: true,
            window: Some(window),
            ..Options::default()
        },
    );
    // [4.5, 6): c 0.5 s × 3 W, b 0.5 s × 1 W, main 0.5 s × 0.1 W.
    assert!(close(at.method(c).unwrap().excl_j, 1.5));
    assert!(close(at.method(b).unwrap().excl_j, 0.5));
    assert!(close(at.method(main).unwrap().excl_j, 0.05));
    assert_eq!(at.method(c).unwrap().calls, 0, "c started before the window");
    assert!(close(at.idle_j, 0.3));
    assert!(close(at.measured_j, 0.3 + 2.05));
    assert_eq!(at.covered_ns, 3 * S as i64 / 2);
}

/// Thread 1 on CPU 0 for [0, 10) s, thread 2 on CPU 1 for [5, 15) s,
/// 2 W above a 0.5 W base throughout [0, 20) s.
fn two_cpus() -> (Session, PowerSamples) {
    let mut s = Session::new("sched", Clocks::WALL);
    let t1 = s.add_thread(Thread {
        tid: 11,
        pid: Some(10),
        name: "one".into(),
    });
    let t2 = s.add_thread(Thread {
        tid: 21,
        pid: Some(20),
        name: "two".into(),
    });
    for (cpu, thread, from, to) in [(0, t1, 0, 10), (1, t2, 5, 15)] {
        s.sched.push(SchedSlice {
            cpu,
            ts_ns: from * S,
            dur_ns: (to - from) * S,
            thread,
            priority: None,
            end_state: None,
        });
    }
    let mut f0 = tracekit_model::CounterTrack::new("cpu0 freq", Some("kHz"));
    f0.cpu = Some(0);
    f0.push(0, 1_000_000.0);
    let mut f1 = tracekit_model::CounterTrack::new("cpu1 freq", Some("kHz"));
    f1.cpu = Some(1);
    f1.push(0, 1_000_000.0);
    f1.push(7 * S as i64, 2_000_000.0);
    s.counters.extend([f0, f1]);
    let p = PowerSamples {
        times: vec![0, 20 * S as i64],
        watts: vec![2.5, 2.5],
        rule: Rule::Trapezoid,
    };
    (s, p)
}

/// Core power: 1 W per GHz on CPU 0, 3 W per GHz on CPU 1.
struct Cores;
impl CorePower for Cores {
    fn core_power_w(&self, cpu: u32, khz: f64) -> Option<f64> {
        Some(if cpu == 0 { 1.0 } else { 3.0 } * khz * 1e-6)
    }
}

#[test]
fn two_threads_on_two_cpus_split_as_the_rule_says() {
    let (s, p) = two_cpus();
    let at = attribute(
        &s,
        &p,
        &Options {
            base: BaseRule::Watts(0.5),
            ..Options::default()
        },
    );
    assert_eq!(at.weights, "sched");
    let e = |tid: u32| {
        at.threads
            .iter()
            .find(|t| s.thread(t.thread).tid == tid)
            .unwrap()
            .energy_j
    };
    // Alone for 5 s each (2 W), together for 5 s (1 W each).
    assert!(close(e(11), 15.0), "{}", e(11));
    assert!(close(e(21), 15.0));
    assert!(close(at.unattributed_j, 10.0), "nobody runs in [15, 20)");
    assert!(close(at.idle_j, 10.0));
    assert!(close(at.attributed_j() + at.idle_j + at.unattributed_j, at.measured_j));
    assert_eq!(at.processes.len(), 2);
    assert_eq!(at.processes[0].pid.map(|p| p == 10 || p == 20), Some(true));

    // With a CPU model the overlap is shared by modelled core power:
    // [5, 7): 1 W vs 3 W; [7, 10): 1 W vs 6 W.
    let at = attribute(
        &s,
        &p,
        &Options {
            base: BaseRule::Watts(0.5),
            cpu_power: Some(&Cores),
            ..Options::default()
        },
    );
    assert!(at.frequency_weighted);
    let e = |tid: u32| {
        at.threads
            .iter()
            .find(|t| s.thread(t.thread).tid == tid)
            .unwrap()
            .energy_j
    };
    let one = 10.0 + 2.0 * 2.0 / 4.0 + 3.0 * 2.0 / 7.0;
    let two = 10.0 + 2.0 * 2.0 * 3.0 / 4.0 + 3.0 * 2.0 * 6.0 / 7.0;
    assert!(close(e(11), one), "{} vs {one}", e(11));
    assert!(close(e(21), two), "{} vs {two}", e(21));

    // Forcing the method trace's clocks: no calls, so nothing is charged.
    let at = attribute(
        &s,
        &p,
        &Options {
            weights: WeightSource::Calls,
            ..Options::default()
        },
    );
    assert!(at.threads.is_empty());
    assert!(close(at.unattributed_j + at.idle_j, at.measured_j));
}

#[test]
fn thread_cpu_clocks_share_a_cpu() {
    // Two threads inside calls for 10 s: one uses 90% of a CPU, the other 30%.
    let mut s = Session::new("dual", Clocks::DUAL);
    let m = s.methods.intern(Method::new("App", "run", "()V"));
    for (tid, frac) in [(1u32, 0.9), (2, 0.3)] {
        let t = s.add_thread(Thread::new(tid, format!("t{tid}")));
        s.calls_mut(t).push(CallEvent::enter(m, 0, Some(0)));
        s.calls_mut(t)
            .push(CallEvent::exit(m, 10 * S, Some((10.0 * S as f64 * frac) as u64)));
    }
    let p = PowerSamples {
        times: vec![0, 10 * S as i64],
        watts: vec![1.2, 1.2],
        rule: Rule::Trapezoid,
    };
    let at = attribute(
        &s,
        &p,
        &Options {
            base: BaseRule::Watts(0.0),
            methods: true,
            ..Options::default()
        },
    );
    assert_eq!(at.weights, "thread-cpu clock");
    let e = |id: u32| at.threads.iter().find(|t| t.thread == ThreadId(id)).unwrap().energy_j;
    assert!(close(e(0), 9.0) && close(e(1), 3.0), "{} {}", e(0), e(1));
    assert!(close(at.method(m).unwrap().incl_j, 12.0));
}

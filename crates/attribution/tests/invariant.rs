//! The accounting invariant on random sessions: the exclusive method
//! energies plus idle, unattributed and outside-methods energy equal the
//! measured energy within 1e-9 relative, and the measured energy equals what `tracekit-energy`
//! integrates over the same window, however calls nest, whatever the
//! power does (negative while charging, crossing the base), with or
//! without scheduling slices and a window.

use proptest::prelude::*;
use tracekit_analysis::IntervalSet;
use tracekit_attribution::{attribute, BaseRule, EnergyIndex, Options};
use tracekit_energy::Options as EnergyOptions;
use tracekit_model::{power, CallEvent, Clocks, CounterKind, CounterTrack, Method, SchedSlice, Session, Thread};

const MS: u64 = 1_000_000;

#[derive(Debug, Clone)]
struct Spec {
    threads: Vec<Vec<(u8, u16, u8)>>, // (action 0..4, dt ms, cpu share %)
    power: Vec<(u16, f64)>,           // (dt ms, watts)
    power_start_ms: u16,
    sched: Vec<(u8, u8, u16, u16)>, // (cpu, thread, start ms, length ms)
    window: Vec<(u16, u16)>,
    base: Option<f64>,
    dual: bool,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec(prop::collection::vec((0u8..4, 0u16..60, 0u8..=100), 0..60), 1..4),
        prop::collection::vec((1u16..80, -0.5f64..5.0), 2..40),
        0u16..200,
        prop::collection::vec((0u8..3, 0u8..3, 0u16..2000, 1u16..400), 0..12),
        prop::collection::vec((0u16..2500, 1u16..600), 0..4),
        prop::option::of(0.0f64..3.0),
        any::<bool>(),
    )
        .prop_map(|(threads, power, power_start_ms, sched, window, base, dual)| Spec {
            threads,
            power,
            power_start_ms,
            sched,
            window,
            base,
            dual,
        })
}

fn build(sp: &Spec) -> Session {
    let mut s = Session::new("random", if sp.dual { Clocks::DUAL } else { Clocks::WALL });
    let methods: Vec<_> = (0..6)
        .map(|k| s.methods.intern(Method::new("R", format!("m{k}"), "()V")))
        .collect();
    for (i, steps) in sp.threads.iter().enumerate() {
        let t = s.add_thread(Thread {
            tid: 100 + i as u32,
            pid: Some(if i == 2 { 7 } else { 5 }),
            name: format!("t{i}"),
        });
        let (mut now, mut cpu) = (0u64, 0u64);
        let mut stack: Vec<usize> = Vec::new();
        for (k, &(action, dt, share)) in steps.iter().enumerate() {
            now += dt as u64 * MS;
            cpu += dt as u64 * MS * share as u64 / 100;
            let c = sp.dual.then_some(cpu);
            if action < 2 || stack.is_empty() {
                let m = (k + action as usize) % methods.len();
                stack.push(m);
                s.calls_mut(t).push(CallEvent::enter(methods[m], now, c));
            } else {
                let m = stack.pop().expect("non-empty");
                s.calls_mut(t).push(CallEvent::exit(methods[m], now, c));
            }
        }
        while let Some(m) = stack.pop() {
            now += MS;
            s.calls_mut(t)
                .push(CallEvent::exit(methods[m], now, sp.dual.then_some(cpu)));
        }
    }
    let mut p = CounterTrack::new(power::BATTERY_POWER, Some("W")).with_kind(CounterKind::Sampled);
    let mut t = sp.power_start_ms as i64 * MS as i64;
    for &(dt, w) in &sp.power {
        p.push(t, w);
        t += dt as i64 * MS as i64;
    }
    s.counters.push(p);
    let n = s.threads.len() as u8;
    let mut by_cpu: Vec<Vec<(u64, u64, u8)>> = vec![Vec::new(); 3];
    for &(cpu, th, start, len) in &sp.sched {
        by_cpu[cpu as usize].push((start as u64 * MS, len as u64 * MS, th % n));
    }
    for (cpu, mut v) in by_cpu.into_iter().enumerate() {
        v.sort();
        let mut free = 0u64;
        for (start, len, th) in v {
            let start = start.max(free);
            s.sched.push(SchedSlice {
                cpu: cpu as u32,
                ts_ns: start,
                dur_ns: len,
                thread: tracekit_model::ThreadId(th as u32),
                priority: None,
                end_state: None,
            });
            free = start + len;
        }
    }
    s.sched.sort_by_key(|x| (x.ts_ns, x.cpu));
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn everything_is_accounted_for(sp in spec()) {
        let s = build(&sp);
        let idx = EnergyIndex::build(&s, &EnergyOptions::default()).unwrap();
        let power = idx.power_samples().unwrap();
        let window = (!sp.window.is_empty()).then(|| {
            let v: Vec<tracekit_analysis::Interval> = sp.window.iter().map(|&(a, l)| tracekit_analysis::Interval {
                start: a as i64 * MS as i64,
                end: (a as i64 + l as i64) * MS as i64,
            }).collect();
            IntervalSet::from_intervals(v)
        });
        let o = Options {
            base: sp.base.map_or(BaseRule::default(), BaseRule::Watts),
            window: window.clone(),
            methods: true,
            record_calls: true,
            bins: 16,
            ..Options::default()
        };
        let a = attribute(&s, &power, &o);
        let scale = a.idle_j.abs() + a.unattributed_j + a.outside_methods_j
            + a.methods.iter().map(|m| m.excl_j.abs()).sum::<f64>() + a.measured_j.abs() + 1e-12;
        prop_assert!((a.accounted_j() - a.measured_j).abs() <= 1e-9 * scale,
            "accounted {} measured {}", a.accounted_j(), a.measured_j);
        let charged: f64 = a.threads.iter().map(|t| t.energy_j).sum();
        let excl: f64 = a.methods.iter().map(|m| m.excl_j).sum();
        prop_assert!((charged - excl - a.outside_methods_j).abs() <= 1e-9 * scale);
        prop_assert!(a.methods.iter().all(|m| m.excl_j >= -1e-12 && m.incl_j >= -1e-12));
        prop_assert!(a.unattributed_j >= -1e-12);
        // The measurement agrees with the energy analysis over the same window.
        let independent: f64 = match &window {
            Some(w) => w.spans().iter().map(|x| idx.energy_j(x.start, x.end).unwrap()).sum(),
            None => idx.energy_j(i64::MIN / 4, i64::MAX / 4).unwrap(),
        };
        let scale2 = independent.abs().max(a.measured_j.abs()) + power.watts.iter().map(|w| w.abs()).sum::<f64>() * 1e-3;
        prop_assert!((a.measured_j - independent).abs() <= 1e-9 * scale2,
            "attribution measured {} vs energy analysis {}", a.measured_j, independent);
        // Bins add up to the whole (without a window).
        if window.is_none() {
            let b = a.bins.as_ref().unwrap();
            let w = b.width_ns as f64 * 1e-9;
            let total: f64 = (0..b.len()).map(|k| b.total_w(k) * w).sum();
            prop_assert!((total - a.measured_j).abs() <= 1e-9 * scale, "bins {} vs {}", total, a.measured_j);
        }
    }
}

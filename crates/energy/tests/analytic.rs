//! Analytic fixtures: closed forms, additivity, the other sources (power,
//! wrapping energy counters, charge counters), status-driven signs and
//! windows from slices, conditions and problems.

use proptest::prelude::*;
use std::f64::consts::PI;
use tracekit_analysis::{Condition, ProblemDef};
use tracekit_energy::{
    analyse, condition_intervals, problem_windows, slice_instances, CurrentSign, EnergyIndex, Method, Options,
    SignBasis, SourceChoice, Window,
};
use tracekit_model::{
    power, CallEvent, Clocks, ContextTrack, ContextType, ContextValue, CounterKind, CounterTrack, Method as M, Session,
    Thread,
};

const S: i64 = 1_000_000_000;

/// V = 4.2 − 0.1·t V and I = 0.5 + 0.2·sin 2πt A, sampled at `hz` for
/// `secs`, current multiplied by `sign`.
fn analytic(hz: i64, secs: i64, sign: f64) -> Session {
    let mut s = Session::new("analytic", Clocks::WALL);
    let mut v = CounterTrack::new(power::BATTERY_VOLTAGE, Some("V")).with_kind(CounterKind::Sampled);
    let mut i = CounterTrack::new(power::BATTERY_CURRENT, Some("A")).with_kind(CounterKind::Sampled);
    for k in 0..=hz * secs {
        let t = k as f64 / hz as f64;
        let ns = k * S / hz;
        v.push(ns, 4.2 - 0.1 * t);
        i.push(ns, sign * (0.5 + 0.2 * (2.0 * PI * t).sin()));
    }
    s.counters.push(v);
    s.counters.push(i);
    s
}

/// ∫₀ᵀ (4.2 − 0.1t)(0.5 + 0.2 sin 2πt) dt.
fn closed_form(t: f64) -> f64 {
    let w = 2.0 * PI;
    let linear = 0.5 * (4.2 * t - 0.05 * t * t);
    // ∫ (4.2 − 0.1t)·0.2 sin(wt) dt
    let sine = 0.2 * (4.2 * (1.0 - (w * t).cos()) / w - 0.1 * ((w * t).sin() / (w * w) - t * (w * t).cos() / w));
    linear + sine
}

#[test]
fn closed_form_within_a_tenth_of_a_percent() {
    let want = closed_form(60.0);
    assert!((want - 36.190986).abs() < 1e-5, "{want}");
    for method in [Method::Trapezoid, Method::LeftHold] {
        let r = analyse(
            &analytic(10, 60, 1.0),
            &[],
            &Options {
                method,
                ..Options::default()
            },
        )
        .unwrap();
        let e = r.total.energy_j.unwrap();
        // Trapezoid meets the 0.1%; left-hold, which lags the sine
        // by half a sample, is within 0.5%.
        let tolerance = if method == Method::Trapezoid { 1e-3 } else { 5e-3 };
        assert!((e - want).abs() / want < tolerance, "{method:?}: {e} vs {want}");
        let [lo, hi] = r.total.bounds_j.unwrap();
        assert!(lo <= want && want <= hi, "{lo}..{hi} misses {want}");
        // Charge: ∫ I dt = 30 A·s = 8333.3 µAh.
        assert!((r.total.charge_uah.unwrap() - 30.0 / 3.6e-3).abs() < 1.0);
    }
}

#[test]
fn adjacent_windows_add_up_and_inner_windows_match_the_closed_form() {
    let s = analytic(10, 60, 1.0);
    let index = EnergyIndex::build(&s, &Options::default()).unwrap();
    let mut sum = 0.0;
    let mut a = 0;
    while a < 60 * S {
        let b = (a + 1_234_567_891).min(60 * S);
        sum += index.energy_j(a, b).unwrap();
        a = b;
    }
    assert!((sum - index.energy_j(0, 60 * S).unwrap()).abs() < 1e-10);
    let w = index.window(&Window::new(12_300_000_000, 47_700_000_000));
    let want = closed_form(47.7) - closed_form(12.3);
    assert!(
        (w.energy_j.unwrap() - want).abs() / want < 1e-3,
        "{:?} vs {want}",
        w.energy_j
    );
}

#[test]
fn kernel_sign_with_a_status_item() {
    // The kernel's convention: negative while discharging, and a status says so.
    let mut s = analytic(10, 10, -1.0);
    let mut st = ContextTrack::new(power::BATTERY_STATUS, ContextType::String);
    st.push(0, ContextValue::Str(power::STATUS_DISCHARGING.into()));
    s.context.push(st);
    let r = analyse(&s, &[], &Options::default()).unwrap();
    assert_eq!(
        (r.current_sign.convention, r.current_sign.basis),
        (CurrentSign::NegativeIsDischarge, SignBasis::Status)
    );
    assert!((r.total.energy_j.unwrap() - closed_form(10.0)).abs() < 0.01);
    // An override that contradicts the status wins, and the status is noted.
    let o = Options {
        current_sign: CurrentSign::PositiveIsDischarge,
        ..Options::default()
    };
    let r = analyse(&s, &[], &o).unwrap();
    assert!(r.total.energy_j.unwrap() < 0.0);
    assert!(r.current_sign.notes.iter().any(|n| n.contains("status item disagrees")));
}

#[test]
fn charge_counter_decides_the_sign_and_cross_checks() {
    // 0.5 A drawn for an hour: the counter falls by 500 000 µAh.
    let mut s = Session::new("q", Clocks::WALL);
    let mut v = CounterTrack::new(power::BATTERY_VOLTAGE, Some("V")).with_kind(CounterKind::Sampled);
    let mut i = CounterTrack::new(power::BATTERY_CURRENT, Some("mA")).with_kind(CounterKind::Sampled);
    let mut q = CounterTrack::new(power::BATTERY_CHARGE, Some("mAh"));
    for k in 0..=60 {
        let t = k * 60 * S;
        v.push(t, 4.0);
        i.push(t, -500.0);
        q.push(t, 3000.0 - 500.0 * k as f64 / 60.0);
    }
    s.counters.extend([v, i, q]);
    let r = analyse(&s, &[], &Options::default()).unwrap();
    assert_eq!(
        (r.current_sign.convention, r.current_sign.basis),
        (CurrentSign::NegativeIsDischarge, SignBasis::ChargeCounter)
    );
    let e = r.total.energy_j.unwrap();
    assert!((e - 4.0 * 0.5 * 3600.0).abs() < 1e-6, "{e}");
    let check = &r.cross_checks[0];
    assert!(check.agrees && (check.ratio.unwrap() - 1.0).abs() < 1e-9, "{check:?}");
    // The charge counter as the source gives the same.
    let r = analyse(
        &s,
        &[],
        &Options {
            source: SourceChoice::ChargeCounter,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(r.method, Method::ChargeCounter);
    assert!((r.total.energy_j.unwrap() - 7200.0).abs() < 1e-6);
    assert!((r.total.charge_uah.unwrap() - 500_000.0).abs() < 1e-6);
}

#[test]
fn energy_counters_survive_wraps() {
    // A RAPL-like counter in µJ wrapping at 1000 J, drawing 30 W for 100 s.
    let mut s = Session::new("rapl", Clocks::WALL);
    let name = "rapl package-0 energy";
    let mut e = CounterTrack::new(name, Some("µJ")).with_kind(CounterKind::Cumulative);
    for k in 0..=100i64 {
        e.push(k * S, ((900.0 + 30.0 * k as f64) % 1000.0) * 1e6);
    }
    s.counters.push(e);
    s.properties.push((power::wrap_range_key(name), "1000".into()));
    let tracks = tracekit_energy::TrackNames {
        energy: name.into(),
        ..Default::default()
    };
    let o = Options {
        tracks,
        ..Options::default()
    };
    let r = analyse(&s, &[Window::new(0, 50 * S), Window::new(50 * S, 100 * S)], &o).unwrap();
    assert_eq!(r.method, Method::EnergyCounter);
    assert!(
        (r.total.energy_j.unwrap() - 3000.0).abs() < 1e-6,
        "{:?}",
        r.total.energy_j
    );
    assert!((r.windows[0].mean_power_w.unwrap() - 30.0).abs() < 1e-9);
    assert!(r.notes.iter().any(|n| n.contains("wrapped 3 time")), "{:?}", r.notes);
    // Without the range the wraps read as resets, and say so.
    s.properties.clear();
    let r = analyse(&s, &[], &o).unwrap();
    assert!(r.total.energy_j.unwrap() < 3000.0);
    assert!(r.notes.iter().any(|n| n.contains("resets")));
}

#[test]
fn windows_from_slices_conditions_and_problems() {
    let mut s = analytic(100, 10, 1.0);
    let t = s.add_thread(Thread::new(1, "main"));
    let m = s.methods.intern(M::new("com/ex/Net", "send", "()V"));
    for (a, b) in [(1, 2), (4, 7)] {
        s.calls_mut(t).push(CallEvent::enter(m, a * S as u64, None));
        s.calls_mut(t).push(CallEvent::exit(m, b * S as u64, None));
    }
    let mut f = CounterTrack::new("cpu0 freq", Some("kHz"));
    for (k, khz) in [(0, 300_000.0), (3, 1_500_000.0), (6, 300_000.0)] {
        f.push(k * S, khz);
    }
    f.cpu = Some(0);
    s.counters.push(f);
    let index = EnergyIndex::build(&s, &Options::default()).unwrap();
    let calls = slice_instances(&s, "send", 10 * S).unwrap();
    assert_eq!(
        calls.iter().map(|w| (w.from_ns, w.to_ns)).collect::<Vec<_>>(),
        vec![(S, 2 * S), (4 * S, 7 * S)]
    );
    let fast = condition_intervals(&s, "cpu0 freq > 1000000").unwrap();
    assert_eq!(
        fast.iter().map(|w| (w.from_ns, w.to_ns)).collect::<Vec<_>>(),
        vec![(3 * S, 6 * S)]
    );
    let e = |w: &[Window]| w.iter().map(|w| index.window(w).energy_j.unwrap()).sum::<f64>();
    assert!((e(&fast) - (closed_form(6.0) - closed_form(3.0))).abs() < 1e-3);
    // Inside and outside a problem add up to the whole capture.
    let def = ProblemDef::Method {
        method: "send".into(),
        when: Some(Condition::parse("cpu0 freq > 1000000").unwrap()),
    };
    let (inside, outside) = problem_windows(&s, &def, 0, 10 * S).unwrap();
    assert!((e(&inside) + e(&outside) - index.energy_j(0, 10 * S).unwrap()).abs() < 1e-9);
    assert_eq!(inside.len(), 1);
    // The total of overlapping windows counts their union once.
    let r = index.report(&[Window::new(0, 2 * S), Window::new(S, 3 * S)]);
    assert!((r.total.energy_j.unwrap() - index.energy_j(0, 3 * S).unwrap()).abs() < 1e-9);
}

#[test]
fn no_power_data_is_an_error_naming_what_exists() {
    let mut s = Session::new("x", Clocks::WALL);
    s.counters.push(CounterTrack::new("cpu0 freq", Some("kHz")));
    s.counters[0].push(0, 1.0);
    let e = analyse(&s, &[], &Options::default()).unwrap_err();
    assert!(e.to_string().contains("cpu0 freq"), "{e}");
    // Current alone gives charge, and energy once a voltage is given.
    let mut s = Session::new("i", Clocks::WALL);
    let mut i = CounterTrack::new(power::BATTERY_CURRENT, Some("A"));
    i.push(0, 0.5);
    i.push(3600 * S, 0.5);
    s.counters.push(i);
    let r = analyse(&s, &[], &Options::default()).unwrap();
    assert_eq!(r.total.energy_j, None);
    assert!((r.total.charge_uah.unwrap() - 500_000.0).abs() < 1e-6);
    let r = analyse(
        &s,
        &[],
        &Options {
            nominal_voltage_v: Some(4.0),
            ..Options::default()
        },
    )
    .unwrap();
    assert!((r.total.energy_j.unwrap() - 7200.0).abs() < 1e-6);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Any partition of any window adds up, for any samples.
    #[test]
    fn energy_adds_up(
        samples in proptest::collection::vec((1i64..50_000_000, -3.0f64..3.0, 3.0f64..4.4), 2..60),
        cuts in proptest::collection::vec(-100_000_000i64..2_000_000_000, 0..12),
        left in any::<bool>(),
    ) {
        let mut s = Session::new("p", Clocks::WALL);
        let mut v = CounterTrack::new(power::BATTERY_VOLTAGE, Some("V"));
        let mut i = CounterTrack::new(power::BATTERY_CURRENT, Some("A"));
        let mut t = 0;
        for (dt, amps, volts) in &samples {
            t += dt;
            v.push(t, *volts);
            i.push(t, *amps);
        }
        s.counters.extend([v, i]);
        let method = if left { Method::LeftHold } else { Method::Trapezoid };
        let index = EnergyIndex::build(&s, &Options { method, ..Options::default() }).unwrap();
        let mut points = cuts.clone();
        points.push(-100_000_000);
        points.push(2_000_000_000);
        points.sort_unstable();
        let whole = index.energy_j(points[0], *points.last().unwrap()).unwrap();
        let sum: f64 = points.windows(2).map(|w| index.window(&Window::new(w[0], w[1])).energy_j.unwrap()).sum();
        prop_assert!((sum - whole).abs() <= 1e-9 * whole.abs().max(1.0), "{} vs {}", sum, whole);
        for w in points.windows(2) {
            let we = index.window(&Window::new(w[0], w[1]));
            let [lo, hi] = we.bounds_j.unwrap();
            prop_assert!(lo <= we.energy_j.unwrap() && we.energy_j.unwrap() <= hi);
        }
    }
}

#[test]
fn batch_calls_keep_the_callers_order() {
    let s = analytic(10, 60, 1.0);
    let index = EnergyIndex::build(&s, &Options::default()).unwrap();
    let ws: Vec<Window> = (0..50)
        .map(|k| Window::new((k * 7919 % 50) * S, (k * 7919 % 50) * S + S / 3))
        .collect();
    let batch = index.energies(&ws);
    let full = index.windows(&ws);
    for (k, w) in ws.iter().enumerate() {
        assert_eq!(batch[k], index.energy_j(w.from_ns, w.to_ns));
        assert_eq!(full[k], index.window(w));
    }
}

#[test]
fn each_source_track_is_listed_once() {
    let mut s = Session::new("q", Clocks::WALL);
    let mut v = CounterTrack::new(power::BATTERY_VOLTAGE, Some("V"));
    let mut q = CounterTrack::new(power::BATTERY_CHARGE, Some("µAh"));
    for k in 0..10 {
        v.push(k * S, 4.0);
        q.push(k * S, 1000.0 - k as f64);
    }
    s.counters.extend([v, q]);
    let r = analyse(&s, &[], &Options::default()).unwrap();
    assert_eq!(r.method, Method::ChargeCounter);
    let roles: Vec<&str> = r.sources.iter().map(|t| t.role.as_str()).collect();
    assert_eq!(roles, vec!["charge", "voltage"]);
    assert!((r.total.energy_j.unwrap() - 9.0 * 3.6e-3 * 4.0).abs() < 1e-12);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Whatever a reader put in the tracks (repeated times, one sample,
    /// wild values, any window), the analysis answers or errs, never panics.
    #[test]
    fn any_tracks_any_windows(
        tracks in proptest::collection::vec(
            (0usize..6, proptest::collection::vec((0i64..5, -1e6f64..1e6), 0..12), any::<bool>()),
            0..5,
        ),
        windows in proptest::collection::vec((-1_000i64..100, 0i64..100), 0..6),
        choice in 0usize..6,
    ) {
        let names = [power::BATTERY_VOLTAGE, power::BATTERY_CURRENT, power::BATTERY_POWER, power::BATTERY_ENERGY, power::BATTERY_CHARGE, "other"];
        let mut s = Session::new("p", Clocks::WALL);
        for (name, samples, cumulative) in tracks {
            let mut c = CounterTrack::new(names[name], None)
                .with_kind(if cumulative { CounterKind::Cumulative } else { CounterKind::Sampled });
            let mut t = 0;
            for (dt, v) in samples {
                t += dt;
                c.push(t, v);
            }
            s.counters.push(c);
        }
        let source = [SourceChoice::Auto, SourceChoice::VoltageCurrent, SourceChoice::Power, SourceChoice::EnergyCounter, SourceChoice::ChargeCounter, SourceChoice::Current][choice];
        let ws: Vec<Window> = windows.iter().map(|&(a, len)| Window::new(a, a + len)).collect();
        if let Ok(r) = analyse(&s, &ws, &Options { source, ..Options::default() }) {
            prop_assert_eq!(r.windows.len(), ws.len().max(1));
            for w in r.windows.iter().chain([&r.total]) {
                if let (Some(e), Some([lo, hi])) = (w.energy_j, w.bounds_j) {
                    prop_assert!(e.is_finite() && lo <= e + 1e-9 * e.abs() && e <= hi + 1e-9 * e.abs());
                }
            }
            serde_json::to_string(&r).unwrap();
        }
    }
}

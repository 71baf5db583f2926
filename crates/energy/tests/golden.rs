//! The issue's golden values, from the seed's own data.
//!
//! The seed's ftrace lines are parsed by a tiny local helper (the real
//! reader is `tracekit-ftrace`; the end-to-end test joins both later), and
//! the Trepn rows by `tracekit-power`.

use std::path::PathBuf;
use tracekit_energy::{analyse, CurrentSign, EnergyIndex, Method, Options, SignBasis, Window};
use tracekit_model::{power, Clocks, CounterKind, CounterTrack, Session};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// `574.487676` → ns, exactly.
fn seconds_to_ns(s: &str) -> i64 {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let frac: String = frac.chars().chain(std::iter::repeat('0')).take(9).collect();
    whole.parse::<i64>().unwrap() * 1_000_000_000 + frac.parse::<i64>().unwrap()
}

/// Reads the seed's `write_power_ringbuffer: v:µV c:µA e:µAh` lines (either
/// spelling) into the model's tracks; `per_pid` gives each writer its own
/// tracks, as a reader that keeps the writing process would.
fn seed_session(file: &str, per_pid: bool) -> Session {
    let text = std::fs::read_to_string(data(file)).unwrap();
    let mut s = Session::new(file, Clocks::WALL);
    for line in text.lines().filter(|l| l.contains("write_power_ringbuffer:")) {
        let (head, fields) = line.split_once(": write_power_ringbuffer:").unwrap();
        let ts = seconds_to_ns(head.split_whitespace().last().unwrap());
        let task = head.split_whitespace().next().unwrap();
        let pid: u32 = task.rsplit('-').next().unwrap().parse().unwrap();
        let mut row = [0.0; 3];
        for f in fields.split_whitespace() {
            let (k, v) = f.split_once(':').unwrap();
            let v: f64 = v.parse().unwrap();
            match k {
                "v" | "V" => row[0] = v * 1e-6,
                "c" | "I" => row[1] = v * 1e-6,
                "e" | "E" => row[2] = v,
                _ => panic!("unknown field {k}"),
            }
        }
        let names = [
            (power::BATTERY_VOLTAGE, power::VOLT, CounterKind::Sampled),
            (power::BATTERY_CURRENT, power::AMPERE, CounterKind::Sampled),
            (power::BATTERY_CHARGE, power::MICRO_AMPERE_HOUR, CounterKind::Level),
        ];
        for (k, (name, unit, kind)) in names.into_iter().enumerate() {
            let want_pid = per_pid.then_some(pid);
            let idx = match s.counters.iter().position(|c| c.name == name && c.pid == want_pid) {
                Some(i) => i,
                None => {
                    let mut c = CounterTrack::new(name, Some(unit)).with_kind(kind);
                    c.pid = want_pid;
                    s.counters.push(c);
                    s.counters.len() - 1
                }
            };
            s.counters[idx].push(ts, row[k]);
        }
    }
    s
}

fn close(x: f64, want: f64, tol: f64) -> bool {
    (x - want).abs() <= tol
}

#[test]
fn seed_capture_energy_power_and_charge() {
    let s = seed_session("seed002_power.txt", false);
    let r = analyse(&s, &[], &Options::default()).unwrap();
    assert_eq!(r.method, Method::Trapezoid);
    let t = &r.total;
    assert_eq!((t.from_us, t.to_us), (574_487_676.0, 577_373_293.0));
    let e = t.energy_j.unwrap();
    assert!(close(e, 6.8081, 5e-5), "trapezoid {e}");
    let est = r.estimates.unwrap();
    assert!(
        close(est.trapezoid_j, 6.8081, 5e-5) && close(est.left_hold_j, 6.8045, 5e-5),
        "{est:?}"
    );
    assert!(close(t.mean_power_w.unwrap(), 2.3593, 5e-5), "{:?}", t.mean_power_w);
    assert!(close(t.charge_uah.unwrap(), 431.79, 5e-3), "{:?}", t.charge_uah);
    let [lo, hi] = t.bounds_j.unwrap();
    assert!(lo <= 6.8045 && hi >= 6.8081 && hi - lo < 0.2, "bounds {lo}..{hi}");
    assert!(!t.uncertain, "{:?}", t.uncertain_reason);

    // The same total by left-hold, asked for directly.
    let left = analyse(
        &s,
        &[],
        &Options {
            method: Method::LeftHold,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(left.method, Method::LeftHold);
    assert!(close(left.total.energy_j.unwrap(), 6.8045, 5e-5));
}

#[test]
fn seed_capture_sign_and_gauge() {
    let s = seed_session("seed002_power.txt", false);
    let r = analyse(&s, &[], &Options::default()).unwrap();
    // No status, and `e` moves ~1089 times faster than the integrated
    // current: only the net sign is left, and it says positive.
    let sign = &r.current_sign;
    assert_eq!(
        (sign.convention, sign.basis),
        (CurrentSign::PositiveIsDischarge, SignBasis::NetSign)
    );
    assert!(
        sign.notes.iter().any(|n| n.contains("unit or scale")),
        "{:?}",
        sign.notes
    );
    // 11 consecutive pairs with unchanged (v, c); 17 changes of e.
    assert_eq!(r.stale_samples, 11);
    let charge = r.gauge.iter().find(|g| g.track == power::BATTERY_CHARGE).unwrap();
    assert_eq!(charge.changes, 17);
    assert!(close(charge.median_change_interval_ms.unwrap(), 212.0, 1.0));
    let current = r.gauge.iter().find(|g| g.track == power::BATTERY_CURRENT).unwrap();
    assert_eq!(current.unchanged_pairs, 11);
    assert!(close(r.sampling_period_ms.unwrap(), 106.7, 0.1));
    // The gauge's own period: slower than the ~107 ms sampler.
    let period = r.gauge_period_ms.unwrap();
    assert!(period > 150.0 && period < 215.0, "{period}");
    assert!(r.two_samplers.is_empty());
    // Δcharge × mean voltage disagrees by three orders of magnitude.
    let q = r
        .cross_checks
        .iter()
        .find(|c| c.method.starts_with("charge counter"))
        .unwrap();
    assert!(!q.agrees);
    assert!(close(q.ratio.unwrap().abs(), 1089.0, 5.0), "{q:?}");
}

#[test]
fn seed_energy_adds_up_over_adjacent_windows() {
    let s = seed_session("seed002_power.txt", false);
    let index = EnergyIndex::build(&s, &Options::default()).unwrap();
    let (a, b) = index.span();
    let whole = index.energy_j(a, b).unwrap();
    let cuts = [a, a + 1, a + 53_000_000, a + 106_830_000, a + 1_000_000_007, b - 2, b];
    let parts: Vec<Window> = cuts.windows(2).map(|w| Window::new(w[0], w[1])).collect();
    let sum: f64 = parts.iter().map(|w| index.window(w).energy_j.unwrap()).sum();
    assert!((sum - whole).abs() < 1e-12, "{sum} vs {whole}");
    // Short windows are flagged: shorter than the gauge's period.
    let short = index.window(&parts[1]);
    assert!(short.uncertain && short.uncertain_reason.unwrap().contains("update period"));
}

#[test]
fn two_samplers_are_flagged() {
    for per_pid in [false, true] {
        let s = seed_session("seed002_two_samplers.txt", per_pid);
        let r = analyse(&s, &[], &Options::default()).unwrap();
        assert_eq!(r.two_samplers.len(), 1, "per_pid {per_pid}");
        let p = &r.two_samplers[0];
        assert_eq!((p.first_us, p.second_us), (18_090_093_080.0, 18_090_093_645.0));
        assert!(close(p.gap_us, 565.0, 1e-6) && p.same_values);
        if per_pid {
            assert_eq!(p.pids, vec![15464, 12268]);
            assert!(r.notes.iter().any(|n| n.contains("2 processes")), "{:?}", r.notes);
        }
        // Negative current on a 3.2 V battery: the net sign says negative is discharge.
        assert_eq!(r.current_sign.convention, CurrentSign::NegativeIsDischarge);
        assert!(r.total.energy_j.unwrap() >= 0.0);
    }
}

#[test]
fn seed_trepn_rows() {
    let s = tracekit_power::read_path(&data("seed002_trepn.csv")).unwrap();
    let r = analyse(&s, &[], &Options::default()).unwrap();
    assert_eq!(r.method, Method::Trapezoid);
    assert_eq!((r.total.from_us, r.total.to_us), (0.0, 900_000.0));
    let est = r.estimates.unwrap();
    assert!(close(est.trapezoid_j, 1.2770, 5e-5), "{est:?}");
    assert!(close(est.left_hold_j, 1.2850, 5e-5), "{est:?}");
    assert_eq!(r.current_sign.basis, SignBasis::NoCurrent);
    assert_eq!(r.total.charge_uah, None);
    assert_eq!(r.sources[0].role, "power");
}

#[test]
fn perfetto_published_conversions() {
    for (ua, v, mw) in [(710_000.0, 11.9, 8449.0), (510_000.0, 12.0, 6120.0)] {
        assert!(close(tracekit_energy::power_mw(ua, v), mw, 1e-9));
        // The same through the analysis: one second of constant V and I.
        let mut s = Session::new("p", Clocks::WALL);
        let mut vt = CounterTrack::new(power::BATTERY_VOLTAGE, Some("V")).with_kind(CounterKind::Sampled);
        let mut it = CounterTrack::new(power::BATTERY_CURRENT, Some("µA")).with_kind(CounterKind::Sampled);
        for t in [0, 500_000_000, 1_000_000_000] {
            vt.push(t, v);
            it.push(t, ua);
        }
        s.counters.push(vt);
        s.counters.push(it);
        let r = analyse(&s, &[], &Options::default()).unwrap();
        assert!(
            close(r.total.mean_power_w.unwrap() * 1e3, mw, 1e-6),
            "{:?}",
            r.total.mean_power_w
        );
    }
}

#[test]
fn report_serialises_with_the_issue_keys() {
    let s = seed_session("seed002_power.txt", false);
    let r = analyse(
        &s,
        &[Window::new(574_500_000_000, 575_000_000_000)],
        &Options::default(),
    )
    .unwrap();
    let v = serde_json::to_value(&r).unwrap();
    if std::env::var_os("TRACEKIT_PRINT_REPORT").is_some() {
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    }
    for key in ["from_us", "to_us", "energy_j", "mean_power_w", "charge_uah", "bounds_j"] {
        assert!(v["windows"][0].get(key).is_some(), "windows[0].{key}");
        assert!(v["total"].get(key).is_some(), "total.{key}");
    }
    for key in ["method", "current_sign", "gauge_period_ms", "stale_samples", "sources"] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["method"], "trapezoid");
    assert_eq!(v["current_sign"]["convention"], "positive_is_discharge");
    assert_eq!(v["windows"][0]["from_us"], 574_500_000.0);
    assert_eq!(v["windows"][0]["bounds_j"].as_array().unwrap().len(), 2);
}

//! The linear model against data generated from known coefficients: a
//! simulated phone (two clusters of two CPUs, screen, Wi-Fi) whose state
//! changes on a 1 ms grid; its meter reports the mean power of each 10 ms
//! interval plus noise. The generator computes power from its own state,
//! not from the crate's features. A matching form recovers the
//! coefficients within 1%; mismatched forms are reported as poor fits;
//! the fit written as a power profile and driven again gives the same power.

use tracekit_model::{Clocks, ContextTrack, ContextType, ContextValue, CounterTrack, Session};
use tracekit_powermodel::{agreement, drive, fit, DeviceProfile, Drivers, Feature, Signals};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn gauss(&mut self) -> f64 {
        let (u, v) = (self.unit().max(1e-300), self.unit());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// The true coefficients (W).
struct Truth {
    base: f64,
    busy: [f64; 2],
    busy_ghz: [f64; 2],
    screen: f64,
    bright: f64,
    wifi: f64,
    rx: f64,
}

const TRUTH: Truth = Truth {
    base: 0.35,
    busy: [0.05, 0.12],
    busy_ghz: [0.09, 0.31],
    screen: 0.42,
    bright: 0.85,
    wifi: 0.06,
    rx: 0.38,
};

const TICK: i64 = 1_000_000; // 1 ms

/// How power depends on the state in the generated data.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    Linear,
    CubicInFrequency,
    HiddenComponent,
}

/// Generates `seconds` of a simulated phone; returns the session and the
/// meter's samples (every 10 ms, mean over the interval, with noise of
/// `noise` relative).
fn simulate(seconds: i64, form: Form, noise: f64, seed: u64) -> (Session, Vec<i64>, Vec<f64>) {
    let mut rng = Rng(seed);
    let mut s = Session::new("sim", Clocks::WALL);
    let speeds = [
        [300_000.0, 800_000.0, 1_400_000.0, 1_800_000.0],
        [700_000.0, 1_500_000.0, 2_200_000.0, 2_800_000.0],
    ];
    let mut freq = [[0.0f64; 2]; 2];
    let mut run = [[false; 2]; 2];
    let (mut screen, mut bright, mut wifi, mut rx_on, mut hidden) = (true, 128.0f64, true, false, 0.0f64);
    let mut freq_t: Vec<CounterTrack> = (0..4)
        .map(|c| {
            let mut t = CounterTrack::new(format!("cpu{c} freq"), Some("kHz"));
            t.cpu = Some(c);
            t
        })
        .collect();
    let mut idle_t: Vec<CounterTrack> = (0..4)
        .map(|c| {
            let mut t = CounterTrack::new(format!("cpu{c} idle"), None);
            t.cpu = Some(c);
            t
        })
        .collect();
    let mut screen_t = ContextTrack::new("Screen state", ContextType::Int);
    let mut bright_t = ContextTrack::new("Screen brightness", ContextType::Int);
    let mut wifi_t = ContextTrack::new("Wifi state", ContextType::Int);
    let mut rx_t = ContextTrack::new("Total received traffic", ContextType::Long);
    let mut rx_bytes = 0i64;
    let (mut times, mut watts) = (Vec::new(), Vec::new());
    let mut acc = 0.0;
    let ticks = seconds * 1000;
    for tick in 0..=ticks {
        let t = tick * TICK;
        // State changes (cluster frequencies every ~50 ms, idle every ~5 ms).
        for k in 0..2 {
            if tick == 0 || rng.unit() < 0.02 {
                let f = speeds[k][(rng.next() % 4) as usize];
                if f != freq[k][0] || tick == 0 {
                    for c in 0..2 {
                        freq[k][c] = f;
                        freq_t[k * 2 + c].push(t, f);
                    }
                }
            }
            for c in 0..2 {
                if tick == 0 || rng.unit() < 0.2 {
                    let r = rng.unit() < 0.5;
                    if r != run[k][c] || tick == 0 {
                        run[k][c] = r;
                        idle_t[k * 2 + c].push(t, if r { -1.0 } else { 1.0 });
                    }
                }
            }
        }
        if tick == 0 || rng.unit() < 0.002 {
            screen = tick == 0 || rng.unit() < 0.8;
            screen_t.push(t, ContextValue::Int(i32::from(screen)));
        }
        if tick == 0 || rng.unit() < 0.003 {
            bright = (rng.next() % 256) as f64;
            bright_t.push(t, ContextValue::Int(bright as i32));
        }
        if tick == 0 || rng.unit() < 0.001 {
            wifi = tick == 0 || rng.unit() < 0.7;
            wifi_t.push(t, ContextValue::Int(if wifi { 3 } else { 1 }));
        }
        // Traffic sampled every 100 ms: each interval either moves data or not.
        if tick % 100 == 0 {
            rx_t.push(t, ContextValue::Long(rx_bytes));
            rx_on = rng.unit() < 0.4;
            if rx_on {
                rx_bytes += 50_000 + (rng.next() % 50_000) as i64;
            }
        }
        if form == Form::HiddenComponent && rng.unit() < 0.01 {
            hidden = if rng.unit() < 0.5 { 0.0 } else { 1.5 };
        }
        // Power during the tick that starts now.
        let mut p = TRUTH.base;
        for k in 0..2 {
            for c in 0..2 {
                if run[k][c] {
                    let ghz = freq[k][c] * 1e-6;
                    p += match form {
                        Form::CubicInFrequency => TRUTH.busy[k] + 0.06 * ghz * ghz * ghz,
                        _ => TRUTH.busy[k] + TRUTH.busy_ghz[k] * ghz,
                    };
                }
            }
        }
        if screen {
            p += TRUTH.screen + TRUTH.bright * bright / 255.0;
        }
        if wifi {
            p += TRUTH.wifi + if rx_on { TRUTH.rx } else { 0.0 };
        }
        p += hidden;
        if tick > 0 && tick % 10 == 0 {
            times.push(t);
            watts.push(acc / 10.0 * (1.0 + noise * rng.gauss()));
            acc = 0.0;
        }
        if tick == 0 {
            times.push(0);
            watts.push(p);
        }
        acc += p;
    }
    s.counters.extend(freq_t);
    s.counters.extend(idle_t);
    s.context.extend([screen_t, bright_t, wifi_t, rx_t]);
    (s, times, watts)
}

fn coef(f: &tracekit_powermodel::LinearFit, feature: Feature) -> f64 {
    f.terms
        .iter()
        .find(|t| t.feature == feature)
        .unwrap_or_else(|| panic!("{feature:?} missing"))
        .coefficient_w
}

#[test]
fn recovers_known_coefficients_within_one_percent() {
    let (s, times, watts) = simulate(600, Form::Linear, 0.005, 0x5eed);
    let f = fit(&s, &times, &watts, None).unwrap();
    for t in &f.terms {
        eprintln!("{:<28} {:>10.5} ± {:.5}", t.name, t.coefficient_w, t.std_error_w);
    }
    assert_eq!(f.clusters.len(), 2, "{:?}", f.clusters);
    assert_eq!(f.clusters[0].cpus, vec![0, 1]);
    let check = |name: &str, got: f64, want: f64| {
        assert!(
            (got - want).abs() <= 0.01 * want.abs(),
            "{name}: fitted {got}, true {want}"
        );
    };
    check("base", coef(&f, Feature::Base), TRUTH.base);
    for k in 0..2 {
        check("busy", coef(&f, Feature::ClusterBusy { cluster: k }), TRUTH.busy[k]);
        check(
            "busy×GHz",
            coef(&f, Feature::ClusterBusyGhz { cluster: k }),
            TRUTH.busy_ghz[k],
        );
    }
    check("screen", coef(&f, Feature::ScreenOn), TRUTH.screen);
    check("brightness", coef(&f, Feature::ScreenBrightness), TRUTH.bright);
    check("wifi", coef(&f, Feature::WifiOn), TRUTH.wifi);
    check("rx", coef(&f, Feature::WifiRx), TRUTH.rx);
    assert_eq!(f.quality.verdict, "good", "{:?}", f.quality);
    assert!(f.error.r2 > 0.95 && f.error.mape_pct < 3.0, "{:?}", f.error);
    let h = f.holdout.unwrap();
    assert!(h.mape_pct < 3.0 && h.r2 > 0.95, "{h:?}");
    assert!(
        f.terms.iter().all(|t| t.feature != Feature::WifiTx),
        "no sent-traffic track"
    );
    assert!(f.dropped.is_empty(), "{:?}", f.dropped);
}

#[test]
fn a_form_that_does_not_match_is_a_poor_fit() {
    let (s, times, watts) = simulate(300, Form::CubicInFrequency, 0.02, 7);
    let f = fit(&s, &times, &watts, None).unwrap();
    eprintln!("cubic: {:?} {:?} {}", f.quality, f.error, f.systematic_residual);
    assert_eq!(
        f.quality.verdict, "poor",
        "{:?} {:?} {}",
        f.quality, f.error, f.systematic_residual
    );
    assert!(!f.quality.reasons.is_empty());
    let (s, times, watts) = simulate(300, Form::HiddenComponent, 0.02, 8);
    let f = fit(&s, &times, &watts, None).unwrap();
    eprintln!("hidden: {:?} {:?}", f.quality, f.error);
    assert_eq!(f.quality.verdict, "poor", "{:?} {:?}", f.quality, f.error);
    assert!(f.error.r2 < 0.9 || f.error.mape_pct > 10.0, "{:?}", f.error);
}

#[test]
fn too_few_samples_is_an_error() {
    let (s, times, watts) = simulate(1, Form::Linear, 0.0, 3);
    assert!(fit(&s, &times[..5], &watts[..5], None).is_err());
}

#[test]
fn the_written_profile_drives_to_the_fitted_power() {
    let (s, times, watts) = simulate(120, Form::Linear, 0.01, 11);
    let f = fit(&s, &times, &watts, None).unwrap();
    let p = f.to_power_profile(None);
    let text = tracekit_power::write_profile(&p, &["fitted".into()], &|_| None);
    let back = tracekit_power::read_profile_bytes(text.as_bytes(), "fit.xml")
        .unwrap()
        .profile;
    let dev = DeviceProfile::from_profile(&back, 4).unwrap();
    assert_eq!(dev.cpu_count(), 4);
    let m = drive(&dev, &s, Some((0, *times.last().unwrap())));
    let a = agreement(&m.step(), &times, &watts);
    assert!(a.r2 > 0.95 && (a.energy_ratio - 1.0).abs() < 0.01, "{a:?}");
    // And it agrees with the fit's own prediction.
    let sig = Signals::build(&s, &Drivers::discover(&s));
    let pred = f.predict(&sig);
    let b = agreement(&pred, &times, &watts);
    assert!((a.r2 - b.r2).abs() < 0.01, "{a:?} vs {b:?}");
}

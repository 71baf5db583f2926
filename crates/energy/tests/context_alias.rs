//! Seed 000's context logger writes the battery as context items with
//! Android's units: `Battery current` (µA, negative while discharging) and
//! `Battery voltage` (mV). They are read as the current and voltage tracks,
//! with the documented sign, and the power samples the index exposes
//! integrate to the same energy as the index.

use tracekit_energy::{analyse, EnergyIndex, Options, SignBasis, Window};
use tracekit_model::{power, Clocks, ContextTrack, ContextType, ContextValue, CounterKind, CounterTrack, Session};

const S: i64 = 1_000_000_000;

fn logger_session() -> Session {
    let mut s = Session::new("clog", Clocks::WALL);
    let mut i = ContextTrack::new("Battery current", ContextType::Int);
    let mut v = ContextTrack::new("Battery voltage", ContextType::Int);
    for k in 0..=100i64 {
        // 500 mA drawn, reported negative; 4000 mV.
        i.push(k * S / 10, ContextValue::Int(-500_000));
    }
    v.push(0, ContextValue::Int(4000));
    v.push(10 * S, ContextValue::Int(4000));
    s.context.push(i);
    s.context.push(v);
    s
}

#[test]
fn logger_items_are_read_with_their_units_and_sign() {
    let s = logger_session();
    let r = analyse(&s, &[Window::new(0, 10 * S)], &Options::default()).unwrap();
    // 0.5 A × 4 V × 10 s.
    assert!(
        (r.total.energy_j.unwrap() - 20.0).abs() < 1e-9,
        "{:?}",
        r.total.energy_j
    );
    assert_eq!(r.current_sign.basis, SignBasis::Declared);
    let roles: Vec<(&str, &str)> = r.sources.iter().map(|t| (t.track.as_str(), t.role.as_str())).collect();
    assert!(roles.contains(&("Battery current", "current")), "{roles:?}");
    // A counter track of the model's name wins over the alias.
    let mut s2 = s.clone();
    let mut p = CounterTrack::new(power::BATTERY_POWER, Some("W")).with_kind(CounterKind::Sampled);
    p.push(0, 1.0);
    p.push(10 * S, 1.0);
    s2.counters.push(p);
    let o = Options {
        source: tracekit_energy::SourceChoice::Power,
        ..Options::default()
    };
    assert!((analyse(&s2, &[], &o).unwrap().total.energy_j.unwrap() - 10.0).abs() < 1e-9);
}

#[test]
fn power_samples_integrate_like_the_index() {
    let s = logger_session();
    let idx = EnergyIndex::build(&s, &Options::default()).unwrap();
    let p = idx.power_samples().unwrap();
    assert_eq!(p.times.len(), p.watts.len());
    assert!(p.watts.iter().all(|w| (w - 2.0).abs() < 1e-12));
    // An energy counter: mean power per interval, held.
    let mut c = Session::new("e", Clocks::WALL);
    let mut e = CounterTrack::new(power::BATTERY_ENERGY, Some("J")).with_kind(CounterKind::Cumulative);
    for (k, j) in [0.0, 3.0, 3.0, 10.0].iter().enumerate() {
        e.push(k as i64 * S, *j);
    }
    c.counters.push(e);
    let idx = EnergyIndex::build(&c, &Options::default()).unwrap();
    let p = idx.power_samples().unwrap();
    assert_eq!(p.watts, vec![3.0, 0.0, 7.0, 0.0]);
    assert_eq!(p.rule, tracekit_energy::curve::Rule::LeftHold);
    let half = idx.energy_j(S / 2, 5 * S / 2).unwrap();
    assert!((half - (1.5 + 0.0 + 3.5)).abs() < 1e-12, "{half}");
}

#[test]
fn a_held_voltage_lasts_as_long_as_the_log() {
    // The logger writes the voltage only when it changes: once, at 0 s,
    // while the current is read every 100 ms for 10 s.
    let mut s = logger_session();
    s.context[1] = ContextTrack::new("Battery voltage", ContextType::Int);
    s.context[1].push(0, ContextValue::Int(4000));
    let r = analyse(&s, &[Window::new(5 * S, 10 * S)], &Options::default()).unwrap();
    // 0.5 A × 4 V × 5 s, not nothing after the voltage's only record.
    let e = r.windows[0].energy_j.unwrap();
    assert!((e - 10.0).abs() < 1e-9, "{e}");
}

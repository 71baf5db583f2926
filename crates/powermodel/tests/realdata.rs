//! A real AOSP power profile (the Pixel 4's, in `tracekit-power`'s test
//! data) driven by real captures from `../shared/realdata`: the Samsung
//! Galaxy S20 Perfetto trace (scheduling, `cpu_idle`, `cpu_frequency`; a
//! Snapdragon 865 with the same 4 + 3 + 1 layout as the Pixel 4's 855)
//! gives a plausible power track; the PETrA systrace has CPU frequencies
//! but neither idle states nor scheduling, and the model says it cannot
//! tell when CPUs ran instead of inventing it.

use std::path::{Path, PathBuf};
use tracekit_powermodel::{drive, DeviceProfile};

fn realdata() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata");
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!("skipped: realdata folder absent");
        None
    }
}

fn pixel4() -> DeviceProfile {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../power/tests/data/pixel4_flame_power_profile.xml");
    let prof = tracekit_power::read_profile_path(&p).unwrap().profile;
    DeviceProfile::from_profile(&prof, 8).unwrap()
}

#[test]
fn pixel4_profile_over_the_s20_capture_is_plausible() {
    let Some(d) = realdata() else { return };
    let s = tracekit_io::open(&d.join("perfetto/mstools_samsung_s20_test_trace.perfetto-trace"))
        .unwrap()
        .session;
    let dev = pixel4();
    let m = drive(&dev, &s, None);
    for n in &m.notes {
        eprintln!("note: {n}");
    }
    for c in &m.components {
        eprintln!("{:<8} {:>9.3} J {:>8.3} W", c.component, c.energy_j, c.mean_power_w);
    }
    let secs = (m.span_ns.1 - m.span_ns.0) as f64 * 1e-9;
    eprintln!(
        "{:.1} s, {:.3} J, mean {:.3} W, {} steps",
        secs,
        m.energy_j,
        m.mean_power_w,
        m.track.len()
    );
    assert!(secs > 10.0, "the capture lasts about 15.8 s: {secs}");
    // Every CPU the capture shows a running state for is modelled.
    assert!(m.drivers.cpu_running.len() >= 6, "{:?}", m.drivers.cpu_running);
    // The floor is the profile's base; the ceiling all eight cores at top speed.
    let base = dev.watts(dev.suspend_ma + dev.idle_ma);
    let ceiling = dev.watts(
        dev.suspend_ma
            + dev.idle_ma
            + dev.active_ma
            + dev
                .clusters
                .iter()
                .map(|c| c.cluster_ma + c.cores as f64 * c.core_ma.last().unwrap())
                .sum::<f64>(),
    );
    assert!(m
        .track
        .values
        .iter()
        .all(|&w| w >= base - 1e-12 && w <= ceiling + 1e-12));
    // The CPU's energy lies between the core-seconds the scheduler shows
    // at the slowest and at the fastest speed's current (plus the shared
    // cluster and active costs while any core runs).
    let cpu = m.components.iter().find(|c| c.component == "cpu").unwrap();
    let core_seconds: f64 = s
        .sched
        .iter()
        .filter(|x| x.cpu < 8)
        .map(|x| x.dur_ns as f64 * 1e-9)
        .sum();
    let lo = core_seconds * dev.watts(dev.clusters.iter().map(|c| c.core_ma[0]).fold(f64::INFINITY, f64::min));
    let shared = dev.watts(dev.active_ma + dev.clusters.iter().map(|c| c.cluster_ma).sum::<f64>());
    let hi = core_seconds
        * dev.watts(
            dev.clusters
                .iter()
                .map(|c| *c.core_ma.last().unwrap())
                .fold(0.0, f64::max),
        )
        + secs * shared;
    eprintln!(
        "{core_seconds:.3} core-seconds: cpu energy {:.3} J within [{lo:.3}, {hi:.3}]",
        cpu.energy_j
    );
    assert!(core_seconds > 0.1);
    assert!(cpu.energy_j >= lo * 0.999 && cpu.energy_j <= hi * 1.001, "{cpu:?}");
    assert!(m.mean_power_w > base && m.mean_power_w < 3.5);
    // The track integrates (held) to the reported energy.
    let t = &m.track;
    let e: f64 = (1..t.len())
        .map(|k| t.values[k - 1] * (t.times[k] - t.times[k - 1]) as f64 * 1e-9)
        .sum();
    assert!((e - m.energy_j).abs() < 1e-6 * m.energy_j, "{e} vs {}", m.energy_j);
    // Frequencies vary over the capture, so does the modelled power.
    let distinct = {
        let mut v = t.values.clone();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v.len()
    };
    assert!(distinct > 20, "{distinct} distinct power levels");
}

#[test]
fn frequencies_alone_do_not_say_when_cpus_ran() {
    let Some(d) = realdata() else { return };
    let s = tracekit_io::open(&d.join("systrace/petra_systrace_example.html"))
        .unwrap()
        .session;
    let m = drive(&pixel4(), &s, None);
    assert!(!m.drivers.cpu_freq.is_empty());
    assert!(m.drivers.cpu_running.is_empty());
    assert!(m.notes.iter().any(|n| n.contains("not modelled")), "{:?}", m.notes);
    assert!(m.components.iter().all(|c| c.component != "cpu"));
}

#[test]
fn a_method_trace_without_tracks_is_modelled_over_its_calls() {
    use tracekit_model::{CallEvent, Clocks, Method, Session, Thread};
    let mut s = Session::new("calls", Clocks::WALL);
    let t = s.add_thread(Thread::new(1, "main"));
    let m = s.methods.intern(Method::new("A", "run", "()V"));
    s.calls_mut(t).push(CallEvent::enter(m, 1_000_000_000, None));
    s.calls_mut(t).push(CallEvent::exit(m, 3_000_000_000, None));
    let dev = pixel4();
    let p = drive(&dev, &s, None);
    assert_eq!(p.span_ns, (1_000_000_000, 3_000_000_000));
    // Nothing but the base for the 2 s the calls span.
    let base = dev.watts(dev.suspend_ma + dev.idle_ma);
    assert!(
        (p.energy_j - 2.0 * base).abs() < 1e-9 * base,
        "{} vs {}",
        p.energy_j,
        2.0 * base
    );
}

//! The real BattOr capture (`../shared/realdata/battery/`, see SOURCES.md)
//! gives a plausible energy.

use std::path::PathBuf;
use tracekit_energy::{analyse, CurrentSign, Options, SignBasis};

#[test]
fn battor_real_file_gives_plausible_energy() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata/battery");
    if !dir.is_dir() {
        eprintln!("skipped: realdata folder absent ({})", dir.display());
        return;
    }
    let s = tracekit_power::read_path(&dir.join("catapult_battor_test_data.txt")).unwrap();
    let r = analyse(&s, &[], &Options::default()).unwrap();
    // 6.5–20.9 mA at about 4.3 V for 1.1 ms.
    let p = r.total.mean_power_w.unwrap();
    assert!(p > 4.3 * 0.0065 && p < 4.34 * 0.0209, "mean power {p} W");
    let e = r.total.energy_j.unwrap();
    assert!((e - p * 1.1e-3).abs() < 1e-12, "{e}");
    assert!(e > 3e-5 && e < 1e-4, "{e} J");
    assert_eq!(
        (r.current_sign.convention, r.current_sign.basis),
        (CurrentSign::PositiveIsDischarge, SignBasis::Declared)
    );
    assert!(r.two_samplers.is_empty());
    assert!((r.sampling_period_ms.unwrap() - 0.1).abs() < 1e-9);
    let [lo, hi] = r.total.bounds_j.unwrap();
    assert!(lo < e && e < hi && hi - lo < 0.5 * e, "{lo}..{hi}");
}

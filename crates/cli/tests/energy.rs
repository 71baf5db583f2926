//! End to end: `tracekit energy` on seed 002's own capture lines (through
//! the ftrace reader), seed 002's Trepn rows, real BattOr data, and a
//! native program whose phases draw different currents, measured by the
//! power sampler in the same recording or by `tracekit power record`
//! beside it and lined up on the wall clock.

mod common;
#[path = "native_common/mod.rs"]
mod native;

use common::{ok_json, tracekit};
use std::path::{Path, PathBuf};
use std::process::Command;

fn energy_data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../energy/tests/data")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn seed_capture_golden_values() {
    let p = energy_data("seed002_power.txt");
    // The seed's phone, as the issue states it: positive current drains the battery.
    let r = ok_json(&["energy", &p, "--current-sign", "positive-is-discharge", "--json"]);
    let t = &r["total"];
    assert!(close(t["energy_j"].as_f64().unwrap(), 6.8081, 5e-5), "{t}");
    assert!(close(t["mean_power_w"].as_f64().unwrap(), 2.3593, 5e-5), "{t}");
    assert!(close(t["charge_uah"].as_f64().unwrap(), 431.79, 5e-3), "{t}");
    assert!(
        close(r["estimates"]["left_hold_j"].as_f64().unwrap(), 6.8045, 5e-5),
        "{r}"
    );
    assert_eq!(r["stale_samples"], 11);
    let l = ok_json(&[
        "energy",
        &p,
        "--current-sign",
        "positive-is-discharge",
        "--integration",
        "left-hold",
        "--json",
    ]);
    assert!(close(l["total"]["energy_j"].as_f64().unwrap(), 6.8045, 5e-5));
    // Left to decide, the analysis reads the charge counter: it rose with the
    // integrated current, so this capture was charging (USB was attached for
    // atrace) and the energy drawn from the battery is negative.
    let a = ok_json(&["energy", &p, "--json"]);
    assert!(
        close(a["total"]["energy_j"].as_f64().unwrap(), -6.8081, 5e-5),
        "{}",
        a["current_sign"]
    );
    assert!(a["current_sign"]["reason"].as_str().unwrap().contains("charge counter"));
}

#[test]
fn two_samplers_are_flagged() {
    let r = ok_json(&["energy", &energy_data("seed002_two_samplers.txt"), "--json"]);
    let pairs = r["two_samplers"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{r}");
    assert!(close(pairs[0]["gap_us"].as_f64().unwrap(), 565.0, 1.0));
}

#[test]
fn seed_trepn_rows_golden_values() {
    let p = energy_data("seed002_trepn.csv");
    let r = ok_json(&["energy", &p, "--json"]);
    assert!(
        close(r["total"]["energy_j"].as_f64().unwrap(), 1.2770, 5e-5),
        "{}",
        r["total"]
    );
    let l = ok_json(&["energy", &p, "--integration", "left-hold", "--json"]);
    assert!(
        close(l["total"]["energy_j"].as_f64().unwrap(), 1.2850, 5e-5),
        "{}",
        l["total"]
    );
}

#[test]
fn real_battor_capture() {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata/battery/catapult_battor_test_data.txt");
    if !p.exists() {
        eprintln!("skipped: realdata folder absent");
        return;
    }
    let r = ok_json(&["energy", p.to_str().unwrap(), "--json"]);
    let w = r["total"]["mean_power_w"].as_f64().unwrap();
    assert!(w > 0.0 && w < 10.0, "{w}");
}

fn fixture(dir: &Path) -> (PathBuf, PathBuf) {
    let sys = dir.join("sys");
    let bat = sys.join("class/power_supply/BAT0");
    std::fs::create_dir_all(&bat).unwrap();
    std::fs::write(bat.join("type"), "Battery\n").unwrap();
    std::fs::write(bat.join("voltage_now"), "4000000\n").unwrap();
    std::fs::write(bat.join("current_now"), "0\n").unwrap();
    std::fs::write(bat.join("status"), "Discharging\n").unwrap();
    (sys, bat.join("current_now"))
}

fn window_energy(args: &[&str]) -> f64 {
    let r = ok_json(args);
    r["total"]["energy_j"].as_f64().unwrap()
}

#[test]
fn energy_follows_the_functions_that_ran() {
    let dir = native::work_dir("energy");
    let prog = native::build(&dir, "energy.c", &[]);
    let (sys, current) = fixture(&dir);
    // One recording: calls and power samples on the same clock.
    let rec = dir.join("rec");
    let out = Command::new(native::TRACEKIT)
        .args([
            "record",
            "--context",
            "power",
            "--context-period-ms",
            "10",
            "--sys-root",
        ])
        .arg(&sys)
        .arg("-o")
        .arg(&rec)
        .arg("--")
        .arg(&prog)
        .arg(&current)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rec_s = rec.to_str().unwrap();
    let light = window_energy(&["energy", rec_s, "--slice", "light_work", "--json"]);
    let heavy = window_energy(&["energy", rec_s, "--slice", "heavy_work", "--json"]);
    // 0.5 A and 1.5 A at 4 V for 0.3 s: 0.6 J and 1.8 J (the sampler sees
    // each change up to a period late).
    assert!(
        close(light, 0.6, 0.15) && close(heavy, 1.8, 0.2),
        "light {light} J, heavy {heavy} J"
    );

    // Power sampled by a separate `tracekit power record` around the
    // recorder, lined up with the recording on the wall clock.
    std::fs::write(&current, "0\n").unwrap();
    let pw = dir.join("power");
    let rec2 = dir.join("rec2");
    let st = tracekit(&[
        "power",
        "record",
        "-o",
        pw.to_str().unwrap(),
        "--sys-root",
        sys.to_str().unwrap(),
        "--period-ms",
        "10",
        "--context",
        "none",
        "--",
        native::TRACEKIT,
        "record",
        "--context",
        "none",
        "-o",
        rec2.to_str().unwrap(),
        "--",
        prog.to_str().unwrap(),
        current.to_str().unwrap(),
    ]);
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let (r2, p2) = (rec2.to_str().unwrap(), pw.to_str().unwrap());
    let heavy2 = window_energy(&["energy", r2, "--power", p2, "--method", "heavy_work", "--json"]);
    assert!(close(heavy2, 1.8, 0.2), "lined up: heavy {heavy2} J");
}

//! End to end: `tracekit power record` and `record --context power` on a
//! fixture sysfs tree, read back through the one door.

mod common;
use common::{ok_json, tracekit};
use std::path::{Path, PathBuf};

fn fixture(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("power-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    let w = |rel: &str, text: &str| {
        let p = d.join("sys").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w("class/power_supply/BAT0/type", "Battery\n");
    w("class/power_supply/BAT0/voltage_now", "3800000\n");
    w("class/power_supply/BAT0/current_now", "-250000\n");
    w("class/power_supply/BAT0/status", "Discharging\n");
    w("class/powercap/intel-rapl:0/name", "package-0\n");
    w("class/powercap/intel-rapl:0/energy_uj", "1000000\n");
    w("class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
    std::fs::write(d.join("marker"), "").unwrap();
    d
}

fn counter<'a>(info: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    info["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no counter {name}: {info}"))
}

#[test]
fn power_record_samples_while_a_command_runs() {
    let d = fixture("cmd");
    let out = d.join("rec");
    let st = tracekit(&[
        "power",
        "record",
        "-o",
        out.to_str().unwrap(),
        "--sys-root",
        d.join("sys").to_str().unwrap(),
        "--period-ms",
        "10",
        "--context",
        "none",
        "--trace-marker",
        d.join("marker").to_str().unwrap(),
        "--",
        "sleep",
        "0.3",
    ]);
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let info = ok_json(&["info", out.to_str().unwrap(), "--json"]);
    assert_eq!(info["format"], "recording");
    let v = counter(&info, "battery voltage");
    let n = v["samples"].as_u64().unwrap();
    // 0.3 s at 10 ms: about 30 samples (the machine may be busy).
    assert!((15..=40).contains(&n), "{n} samples");
    assert_eq!(v["unit"], "V");
    assert_eq!(counter(&info, "battery current")["unit"], "A");
    assert_eq!(
        counter(&info, "rapl intel-rapl:0 package-0 energy")["kind"],
        "cumulative"
    );
    let marker = std::fs::read_to_string(d.join("marker")).unwrap();
    assert!(
        marker
            .lines()
            .any(|l| l.starts_with("C|") && l.ends_with("|battery voltage|3.8")),
        "{marker}"
    );
    // The status is a context item, so conditions can name it.
    let ctx = info["context"].as_array().unwrap();
    assert!(ctx.iter().any(|c| c["label"] == "battery status"), "{info}");
}

#[test]
fn power_record_passes_the_exit_status_through() {
    let d = fixture("status");
    let out = d.join("rec");
    let st = tracekit(&[
        "power",
        "record",
        "-o",
        out.to_str().unwrap(),
        "--sys-root",
        d.join("sys").to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "exit 3",
    ]);
    assert_eq!(st.status.code(), Some(3));
}

#[test]
fn power_record_for_a_duration_and_missing_sources_are_reported() {
    let d = fixture("empty");
    let empty = d.join("nothing");
    std::fs::create_dir_all(&empty).unwrap();
    let out = d.join("rec");
    let st = tracekit(&[
        "power",
        "record",
        "-o",
        out.to_str().unwrap(),
        "--sys-root",
        empty.to_str().unwrap(),
        "--duration-s",
        "0.1",
    ]);
    assert!(st.status.success());
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(err.contains("none of the sources"), "{err}");
}

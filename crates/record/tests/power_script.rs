//! The phone-side sampler script (`sh/tracekit-power.sh`), run by the
//! POSIX shells this machine has against a fixture sysfs tree, with a plain
//! file standing in for the kernel's trace_marker.

use std::path::Path;
use std::process::Command;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sh/tracekit-power.sh");

fn fixture(root: &Path) {
    let w = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w("class/power_supply/usb/type", "USB\n");
    w("class/power_supply/usb/voltage_now", "5000000\n");
    w("class/power_supply/max170xx_battery/type", "Battery\n");
    w("class/power_supply/max170xx_battery/voltage_now", "4380937\n");
    w("class/power_supply/max170xx_battery/current_now", "530056\n");
    w("class/power_supply/max170xx_battery/charge_counter", "-203095456\n");
    w("kernel/tracing/trace_marker", "");
}

/// The POSIX shells installed here (dash always is on Debian).
fn shells() -> Vec<Vec<&'static str>> {
    [
        vec!["dash"],
        vec!["busybox", "sh"],
        vec!["toybox", "sh"],
        vec!["bash", "--posix"],
    ]
    .into_iter()
    .filter(|sh| {
        Command::new(sh[0])
            .args(&sh[1..])
            .args(["-c", "true"])
            .status()
            .is_ok_and(|s| s.success())
    })
    .collect()
}

#[test]
fn writes_counters_in_si_units_to_the_marker() {
    let shells = shells();
    assert!(!shells.is_empty(), "no POSIX shell found");
    for sh in shells {
        let d = tempfile::tempdir().unwrap();
        fixture(d.path());
        let st = Command::new(sh[0])
            .args(&sh[1..])
            .args([SCRIPT, "-r", d.path().to_str().unwrap(), "-n", "3", "-p", "20"])
            .status()
            .unwrap();
        assert!(st.success(), "{sh:?}");
        let text = std::fs::read_to_string(d.path().join("kernel/tracing/trace_marker")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 9, "{sh:?}: {text}");
        for (i, want) in [
            "battery voltage|4.380937",
            "battery current|0.530056",
            "battery charge|-203095456",
        ]
        .iter()
        .enumerate()
        {
            let l = lines[i];
            assert!(l.starts_with("C|") && l.ends_with(want), "{sh:?}: {l}");
        }
    }
}

#[test]
fn says_why_when_there_is_nowhere_to_write() {
    let d = tempfile::tempdir().unwrap();
    fixture(d.path());
    std::fs::remove_file(d.path().join("kernel/tracing/trace_marker")).unwrap();
    let out = Command::new("sh")
        .args([SCRIPT, "-r", d.path().to_str().unwrap(), "-n", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("trace_marker"));
}

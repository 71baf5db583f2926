//! Issue 19 end to end: generated scenarios written as real .trace + .clog
//! files and read back by `tracekit problems`, alone and pooled.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use tracekit_example::hint_scenarios::{low_battery, scenario, Cause};

mod common;
use common::{ok_json, ok_stdout};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn save(s: &tracekit_model::Session, d: &Path, name: &str) -> String {
    let base = d.join(name);
    tracekit_io::save(s, &base).unwrap();
    base.to_str().unwrap().to_owned()
}

fn margin(v: &Value, cause: &str) -> f64 {
    let h = v["hints"].as_array().unwrap();
    assert_eq!(
        h[0]["label"],
        cause,
        "{}",
        serde_json::to_string_pretty(&v["hints"]).unwrap()
    );
    h[0]["score"].as_f64().unwrap() - h[1]["score"].as_f64().unwrap()
}

#[test]
fn pooled_sessions_from_files_widen_the_drifting_cause_lead() {
    let d = dir("hints-drifting");
    let bases: Vec<String> = (1..=5)
        .map(|seed| save(&scenario(Cause::DriftingInt, seed), &d, &format!("s{seed}")))
        .collect();
    let cause = Cause::DriftingInt.label();
    let single: Vec<f64> = bases
        .iter()
        .map(|b| margin(&ok_json(&["problems", b, "--brb", "--json"]), cause))
        .collect();
    assert!(single.iter().all(|&m| m >= 0.05), "{single:?}");
    let mut args = vec!["problems"];
    args.extend(bases.iter().map(String::as_str));
    args.extend(["--brb", "--json"]);
    let pooled = ok_json(&args);
    let m = margin(&pooled, cause);
    let mean = single.iter().sum::<f64>() / single.len() as f64;
    assert!(m > mean + 0.1, "pooled {m:.3}, alone {single:.3?}");
    for h in pooled["hints"].as_array().unwrap() {
        for key in ["score", "raw_score", "kind", "confounded_with_time", "type", "defined"] {
            assert!(h.get(key).is_some(), "{key} in {h}");
        }
    }
    let time = pooled["hints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["kind"] == "time")
        .unwrap();
    assert!(time["note"].as_str().unwrap().contains("sessions"), "{time}");
}

#[test]
fn one_confounded_session_says_so_in_text() {
    let d = dir("hints-battery");
    let base = save(&low_battery(1, 30.0), &d, "battery");
    let out = ok_stdout(&["problems", &base, "--brb"]);
    let hints: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("most suspicious first"))
        .skip(1)
        .collect();
    assert!(
        hints[0].contains("Session time") && hints[0].contains(" time "),
        "{out}"
    );
    let section = out.find("Confounded with time").unwrap_or_else(|| panic!("{out}"));
    let battery = out.find("Battery level").unwrap();
    assert!(
        battery > section,
        "the battery is listed as confounded, not as a suspect:\n{out}"
    );
    assert!(out.contains("confounded with time: its values at the occurrences are what their times alone predict"));
}

#[test]
fn counters_by_rate_with_a_window_the_user_sets() {
    let d = dir("hints-rate");
    let base = save(&scenario(Cause::CounterRate, 2), &d, "rate");
    let v = ok_json(&["problems", &base, "--brb", "--json", "--rate-window-s", "2"]);
    let h = &v["hints"][0];
    assert_eq!(h["label"], "Bytes received");
    assert_eq!(h["kind"], "rate");
    assert!(h["note"].as_str().unwrap().contains("over 2 s windows"), "{h}");
    let wider = ok_json(&["problems", &base, "--brb", "--json", "--time-window-s", "20"]);
    assert_ne!(wider["hints"][0]["score"], v["hints"][0]["score"]);
    let text = ok_stdout(&["problems", &base, "--brb"]);
    assert!(text.contains("90% of rates in ["), "{text}");
    for bad in [["--rate-window-s", "0"], ["--time-window-s", "inf"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
            .args(["problems", &base, "--brb"])
            .args(bad)
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("positive"), "{bad:?}");
    }
}

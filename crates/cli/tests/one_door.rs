//! End to end: every command reads every input through the one door
//! (`tracekit-io`), found by content, and outputs never overwrite inputs.
//! Real captures come from `../shared/realdata/` (see its SOURCES.md).

mod common;
use common::{ok_json, ok_stdout, tracekit};
use std::path::{Path, PathBuf};

fn scratch(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("one-door-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn realdata(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/realdata")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: realdata folder absent ({} not found)", p.display());
        None
    }
}

fn example(tag: &str) -> (PathBuf, String) {
    let d = scratch(tag);
    ok_stdout(&["example", "-o", d.to_str().unwrap(), "--duration", "20"]);
    let base = d.join("browser");
    (d, base.to_string_lossy().into_owned())
}

#[test]
fn replay_reads_an_android_trace() {
    let (_d, base) = example("replay");
    let text = ok_stdout(&["replay", &base, "--depth", "2"]);
    assert!(text.lines().count() > 100, "{text}");
    let v = ok_json(&["replay", &format!("{base}.trace"), "--json", "--depth", "1"]);
    assert!(!v["events"].as_array().unwrap().is_empty());
}

#[test]
fn a_renamed_trace_is_found_by_content() {
    let (d, base) = example("renamed");
    let odd = d.join("capture.bin");
    std::fs::copy(format!("{base}.trace"), &odd).unwrap();
    let v = ok_json(&["profile", odd.to_str().unwrap(), "--json"]);
    assert!(!v["methods"].as_array().unwrap().is_empty());
}

#[test]
fn outputs_that_would_overwrite_an_input_are_refused() {
    let (_d, base) = example("overwrite");
    let trace = format!("{base}.trace");
    let before = std::fs::read(&trace).unwrap();
    for args in [
        vec!["report", base.as_str(), "--html", "-o", trace.as_str()],
        vec!["convert", base.as_str(), "--to", "objtrace", "-o", trace.as_str()],
        vec!["convert", base.as_str(), "--to", "android", "--output", base.as_str()],
    ] {
        let out = tracekit(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("would overwrite the input"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(&trace).unwrap(), before);
}

#[test]
fn non_regular_inputs_are_refused_quickly() {
    for args in [["info", "/dev/zero"], ["profile", "/dev/zero"]] {
        let out = tracekit(&args);
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    }
}

#[test]
fn real_android_traces_open_in_every_command() {
    let Some(dir) = realdata("dmtrace") else { return };
    for name in [
        "fenix_art_regular_v3_dual.trace",
        "fenix_art_streaming_v3_dual.trace",
        "tracereader_test2_v3_dual_dalvik.trace",
        "perflib_basic-api10_v1_threadcpu_dalvik.trace",
    ] {
        let p = dir.join(name);
        let p = p.to_str().unwrap();
        let info = ok_stdout(&["info", p]);
        assert!(info.contains("threads"), "{name}: {info}");
        let prof = ok_json(&["profile", p, "--json"]);
        assert!(!prof["methods"].as_array().unwrap().is_empty(), "{name}");
        let listing = ok_json(&["replay", p, "--json"]);
        assert!(!listing["events"].as_array().unwrap().is_empty(), "{name}");
    }
}

#[test]
fn convert_writes_every_viewer_format() {
    let (d, base) = example("convert");
    for (to, check) in [
        ("speedscope", "\"$schema\""),
        ("firefox", "\"meta\""),
        ("folded", "android.os.Looper.loop"),
        ("objtrace", "# tracekit object trace"),
    ] {
        let out = d.join(format!("out.{to}"));
        ok_stdout(&["convert", &base, "--to", to, "-o", out.to_str().unwrap()]);
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains(check), "{to}: {}", &text[..text.len().min(200)]);
        assert!(!d.join(format!("out.{to}.tracekit-partial")).exists());
    }
    let cpu = d.join("cpu.folded");
    ok_stdout(&[
        "convert",
        &base,
        "--to",
        "folded",
        "--clock",
        "cpu",
        "--thread-roots",
        "-o",
        cpu.to_str().unwrap(),
    ]);
    assert!(std::fs::read_to_string(&cpu)
        .unwrap()
        .lines()
        .all(|l| l.rsplit_once(' ').is_some()));
}

#[test]
fn real_systrace_captures_open_and_counters_are_context_items() {
    let Some(dir) = realdata("systrace") else { return };
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let info = ok_json(&["info", p.to_str().unwrap(), "--json"]);
        assert_eq!(info["format"], "systrace", "{}", p.display());
    }
    let p = dir.join("catapult_decompressed_atrace_data.txt");
    let p = p.to_str().unwrap();
    let prof = ok_json(&["profile", p, "--json"]);
    let names: Vec<&str> = prof["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"DrawFrame"), "{names:?}");
    // An app's C| counter names a condition like any context item.
    let v = ok_json(&[
        "problems",
        p,
        "--method",
        "DrawFrame",
        "--when",
        "hwui_Texture > 1000000",
        "--json",
    ]);
    assert!(v.to_string().contains("hwui_Texture"), "{v}");
    let html = scratch("systrace-report").join("r.html");
    ok_stdout(&["report", p, "--html", "-o", html.to_str().unwrap()]);
    assert!(std::fs::metadata(&html).unwrap().len() > 10_000);
}

#[test]
fn perfetto_and_chrome_exports_read_back_through_the_door() {
    let (d, base) = example("roundtrip");
    let want = ok_json(&["profile", &base, "--json"]);
    for (to, file) in [("perfetto", "s.pftrace"), ("chrome-json", "s.json")] {
        let out = d.join(file);
        ok_stdout(&["convert", &base, "--to", to, "-o", out.to_str().unwrap()]);
        let info = ok_json(&["info", out.to_str().unwrap(), "--json"]);
        assert_eq!(info["format"], to, "{to}");
        let got = ok_json(&["profile", out.to_str().unwrap(), "--json"]);
        let calls = |v: &serde_json::Value| -> u64 {
            v["methods"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["calls"].as_u64().unwrap())
                .sum()
        };
        assert_eq!(calls(&got), calls(&want), "{to}");
        let total = |v: &serde_json::Value| v["total_real_us"].as_f64().unwrap();
        assert!(
            (total(&got) - total(&want)).abs() < 1.0,
            "{to}: {} vs {}",
            total(&got),
            total(&want)
        );
    }
}

#[test]
fn real_perfetto_and_chrome_traces_open() {
    let Some(dir) = realdata("perfetto") else { return };
    let p = dir.join("nowinandroid_pixel7pro.perfetto-trace");
    let prof = ok_json(&["profile", p.to_str().unwrap(), "--json"]);
    assert!(!prof["methods"].as_array().unwrap().is_empty());
    let s20 = dir.join("mstools_samsung_s20_test_trace.perfetto-trace");
    let info = ok_json(&["info", s20.to_str().unwrap(), "--json"]);
    assert!(
        info["sched_slices"].as_u64().unwrap() > 9000,
        "{}",
        info["sched_slices"]
    );
    assert!(info["counters"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["name"].as_str().unwrap().ends_with("freq")));
    let Some(cj) = realdata("chrome-json") else { return };
    for e in std::fs::read_dir(&cj).unwrap() {
        let p = e.unwrap().path();
        let info = ok_json(&["info", p.to_str().unwrap(), "--json"]);
        assert_eq!(info["format"], "chrome-json");
        ok_json(&["profile", p.to_str().unwrap(), "--json"]);
    }
}

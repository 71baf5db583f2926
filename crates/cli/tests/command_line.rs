//! End to end: one consistent command line. Exit statuses (0 ok, 1 error,
//! 2 usage), one error prefix, renamed options still accepted, `--json`
//! on the reports, conditions that cannot crash the process, and names
//! printed without their escape sequences.

mod common;
use common::{ok_json, ok_stdout, tracekit};
use std::path::{Path, PathBuf};

fn scratch(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("command-line-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn example(tag: &str) -> String {
    let d = scratch(tag);
    ok_stdout(&[
        "example",
        "-o",
        d.to_str().unwrap(),
        "--duration-s",
        "10",
        "--seed",
        "4",
    ]);
    d.join("browser").to_string_lossy().into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn exit_statuses_and_one_error_prefix() {
    let base = example("status");
    // 0: success; help and version too.
    for args in [
        &["info", base.as_str()][..],
        &["--help"],
        &["--version"],
        &["profile", "--help"],
    ] {
        assert_eq!(tracekit(args).status.code(), Some(0), "{args:?}");
    }
    // 2: usage errors, with the same prefix as every other error.
    for args in [
        &["profile", base.as_str(), "--bogus"][..],
        &["profile"],
        &["nope"],
        &["context", base.as_str(), "--at-us", "NaN"],
        &["emu", "run", "--arch", "sparc", "-o", "x", "--", "x"],
        &[],
    ] {
        let out = tracekit(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        if !args.is_empty() {
            assert!(
                stderr(&out).starts_with("tracekit: error: "),
                "{args:?}: {}",
                stderr(&out)
            );
        }
    }
    // 1: errors of input or analysis.
    for args in [
        &["info", "/nonexistent/trace"][..],
        &["profile", base.as_str(), "--when", "Nope > 1"],
        &["profile", base.as_str(), "--thread", "no-such-thread"],
    ] {
        let out = tracekit(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).starts_with("tracekit: error: "),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // The help groups the commands by area and documents the statuses.
    let help = ok_stdout(&["--help"]);
    for heading in [
        "Read and analyse traces:",
        "Views and export:",
        "Path profiling:",
        "Exit status:",
    ] {
        assert!(help.contains(heading), "{help}");
    }
}

#[test]
fn old_option_spellings_still_work() {
    let base = example("aliases");
    let new = ok_json(&["context", &base, "--at-us", "5000000", "--json"]);
    let old = ok_json(&["context", &base, "--at", "5000000", "--json"]);
    assert_eq!(new, old);
    let tid = ok_json(&["info", &base, "--json"])["threads"][0]["tid"].to_string();
    let name = ok_json(&["info", &base, "--json"])["threads"][0]["name"]
        .as_str()
        .unwrap()
        .to_owned();
    let by_tid = ok_json(&["replay", &base, "--json", "--depth", "1", "--tid", &tid]);
    let by_thread = ok_json(&["replay", &base, "--json", "--depth", "1", "--thread", &tid]);
    let by_name = ok_json(&["replay", &base, "--json", "--depth", "1", "--thread", &name]);
    assert_eq!(by_tid, by_thread);
    assert_eq!(by_thread, by_name);
    assert!(!by_name["events"].as_array().unwrap().is_empty());
    let d = scratch("aliases-old");
    ok_stdout(&["example", "--out", d.to_str().unwrap(), "--duration", "5"]);
    assert!(d.join("browser.trace").is_file());
}

#[test]
fn conditions_nested_thousands_deep_are_errors_not_crashes() {
    let base = example("deep");
    let deep = format!("{}CPU > 0.5{}", "(".repeat(11_000), ")".repeat(11_000));
    let problem = format!("onDraw when {deep}");
    for args in [
        vec!["profile", base.as_str(), "--when", deep.as_str()],
        vec!["calltree", base.as_str(), "--when", deep.as_str()],
        vec!["problems", base.as_str(), "--method", "onDraw", "--when", deep.as_str()],
        vec![
            "report",
            base.as_str(),
            "--html",
            "-o",
            "/dev/null",
            "--problem",
            problem.as_str(),
        ],
    ] {
        let out = tracekit(&args);
        assert_eq!(out.status.code(), Some(1), "{}: {}", args[0], stderr(&out));
        assert!(
            stderr(&out).contains("parentheses deep"),
            "{}: {}",
            args[0],
            stderr(&out)
        );
    }
    let out = tracekit(&["profile", &base, "--when", "CPU > NaN"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not a finite number"), "{}", stderr(&out));
}

/// Copies the v3 dual-clock fixture with its thread name "main" and class
/// "App" replaced by terminal escape sequences of the same length.
fn hostile_trace(dir: &Path) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dmtrace/tests/fixtures/v3-dual.trace");
    let mut b = std::fs::read(src).unwrap();
    let replace = |b: &mut Vec<u8>, from: &[u8], to: &[u8]| {
        let mut at = 0;
        while let Some(i) = b[at..].windows(from.len()).position(|w| w == from) {
            b[at + i..at + i + from.len()].copy_from_slice(to);
            at += i + from.len();
        }
    };
    replace(&mut b, b"\tmain\n", b"\t\x1b[2J\n");
    replace(&mut b, b"com/ex/App", b"com/ex/\x1b[m");
    let p = dir.join("hostile.trace");
    std::fs::write(&p, b).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn names_are_printed_without_their_escape_sequences() {
    let d = scratch("escapes");
    let trace = hostile_trace(&d);
    for args in [
        vec!["info", trace.as_str()],
        vec!["profile", trace.as_str()],
        vec!["calltree", trace.as_str()],
        vec!["replay", trace.as_str()],
        vec!["profile", trace.as_str(), "--per-thread"],
    ] {
        let text = ok_stdout(&args);
        assert!(!text.contains('\x1b'), "{args:?} printed an escape: {text:?}");
        assert!(text.contains("\\u{1b}["), "{args:?}: {text}");
    }
    // JSON keeps the raw names (serde escapes them).
    let v = ok_json(&["info", &trace, "--json"]);
    assert_eq!(v["threads"][0]["name"], "\x1b[2J");
    // Errors naming a thread are escaped too.
    let out = tracekit(&["profile", &trace, "--thread", "x\x1b[31m"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!stderr(&out).contains('\x1b'), "{:?}", stderr(&out));
}

#[test]
fn every_report_speaks_json() {
    let base = example("json");
    let info = ok_json(&["info", &base, "--json"]);
    assert_eq!(info["lost_events"], 0, "a field added by issue 10");
    assert!(ok_json(&["calltree", &base, "--json", "--depth", "2"])["children"].is_array());
    let p = ok_json(&["profile", &base, "--json", "--per-thread"]);
    assert!(p["threads"][0]["methods"].is_array());
    let c = ok_json(&["problems", &base, "--brb", "--json"]);
    assert!(c["occurrences"].is_array() && c["hints"].is_array());
    let v = ok_json(&["emu", "profile", "list", "--json"]);
    assert!(v.as_array().unwrap().iter().any(|p| p["name"] == "armv7-cortex-a8"));
    // An object trace's diagram as JSON.
    let d = scratch("json-otr");
    let otr = d.join("a.otr");
    std::fs::write(
        &otr,
        "C 1 0xa 1 Alarm\nE 1 0xa 2 Alarm IAlarm Set\nL 1 0xa 3 Alarm IAlarm Set\n",
    )
    .unwrap();
    let s = ok_json(&["seqdiag", otr.to_str().unwrap(), "--json"]);
    assert_eq!(s["participants"][1]["class"], "Alarm");
    assert_eq!(s["messages"][1]["label"], "IAlarm.Set");
    assert!(s["deadlocks"].as_array().unwrap().is_empty());
}

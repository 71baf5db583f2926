//! End-to-end tests of issue 2's commands: the real binary on real files
//! written by the example generator (and hand-made broken ones).

use serde_json::Value;
use std::path::{Path, PathBuf};

mod common;
use common::{ok_json, ok_stdout, tracekit};

fn ok(args: &[&str]) -> String {
    ok_stdout(args)
}

fn json(args: &[&str]) -> Value {
    ok_json(args)
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes the example (short, fixed seed) and returns its base path.
fn example(dir: &Path, seed: &str, secs: &str) -> String {
    ok(&[
        "example",
        "-o",
        dir.to_str().unwrap(),
        "--name",
        "s",
        "--seed",
        seed,
        "--duration",
        secs,
    ]);
    dir.join("s").to_str().unwrap().to_owned()
}

#[test]
fn demo_finds_the_portrait_pattern() {
    let d = scratch("demo");
    let out = ok(&["demo", "-o", d.to_str().unwrap()]);
    assert!(out.contains("Profile (real and CPU time)"), "{out}");
    let hints: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("most suspicious first"))
        .skip(1)
        .take(3)
        .collect();
    assert!(hints[0].contains("Time since orientation change"), "{hints:?}");
    assert!(
        hints
            .iter()
            .any(|l| l.contains("Screen orientation") && l.contains("1 (100%)")),
        "{hints:?}"
    );
}

#[test]
fn profile_json_contract() {
    let d = scratch("profile");
    let base = example(&d, "3", "20");
    let v = json(&["profile", &base, "--json"]);
    assert_eq!(v["clock"], "dual");
    let methods = v["methods"].as_array().unwrap();
    assert!(methods.len() > 20);
    for key in [
        "class",
        "name",
        "signature",
        "calls",
        "recursive_calls",
        "incl_real_us",
        "excl_real_us",
        "incl_cpu_us",
        "excl_cpu_us",
    ] {
        assert!(methods[0].get(key).is_some(), "missing {key}");
    }
    let looper = methods.iter().find(|m| m["class"] == "android/os/Looper").unwrap();
    assert_eq!(looper["calls"], 1);
    assert!(looper["incl_real_us"].as_f64().unwrap() > 19.0e6);
    for m in methods {
        assert!(m["excl_real_us"].as_f64().unwrap() <= m["incl_real_us"].as_f64().unwrap());
    }
    // A condition restricts the profile to the time it holds.
    let w = json(&["profile", &base, "--json", "--when", "Screen orientation == 1"]);
    let looper_w = w["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["class"] == "android/os/Looper")
        .unwrap();
    assert!(looper_w["incl_real_us"].as_f64().unwrap() < looper["incl_real_us"].as_f64().unwrap());
    assert!(w["window_us"].as_f64().unwrap() > 0.0);
}

#[test]
fn problems_json_contract_and_pooling() {
    let d = scratch("problems");
    let a = example(&d.join("a"), "5", "60");
    let b = example(&d.join("b"), "6", "60");
    let v = json(&["problems", &a, "--brb", "--json"]);
    let occ = v["occurrences"].as_array().unwrap();
    assert!(!occ.is_empty());
    assert!(occ[0]["ts_us"].as_f64().unwrap() > 0.0);
    assert_eq!(occ[0]["thread"], "main");
    assert_eq!(v["calls_inside"].as_u64().unwrap(), occ.len() as u64);
    let hints = v["hints"].as_array().unwrap();
    let orient = hints.iter().find(|h| h["label"] == "Screen orientation").unwrap();
    assert_eq!(orient["type"], "int");
    assert_eq!(orient["top_values"][0]["value"], 1);
    let since = hints
        .iter()
        .find(|h| h["label"] == "Time since orientation change")
        .unwrap();
    assert!(since["p5"].as_f64().unwrap() < since["p95"].as_f64().unwrap());

    let pooled = json(&["problems", &a, &b, "--brb", "--json"]);
    let vb = json(&["problems", &b, "--brb", "--json"]);
    assert_eq!(
        pooled["occurrences"].as_array().unwrap().len(),
        occ.len() + vb["occurrences"].as_array().unwrap().len()
    );

    let m = json(&["problems", &a, "--method", "View.layout", "--json"]);
    assert!(m.get("occurrences").is_some());
    let m = json(&[
        "problems",
        &a,
        "--method",
        "onDraw",
        "--when",
        "Screen orientation == 1 or CPU > 0.6",
        "--json",
    ]);
    let inside = m["calls_inside"].as_u64().unwrap();
    let outside = m["calls_outside"].as_u64().unwrap();
    assert!(inside > 0 && outside > 0, "{inside} {outside}");
}

#[test]
fn context_at_an_instant() {
    let d = scratch("context");
    let base = example(&d, "7", "20");
    let v = json(&["context", &base, "--at", "10000000", "--json"]);
    let items = v["context"].as_array().unwrap();
    assert_eq!(items.len(), 22);
    let screen = items.iter().find(|i| i["label"] == "Screen state").unwrap();
    assert_eq!(screen["value"], 1);
    // Before the log started nothing is defined; a float after its last record is undefined too.
    let v = json(&["context", &base, "--at", "-1000000", "--json"]);
    assert!(v["context"].as_array().unwrap().iter().all(|i| i["value"].is_null()));
}

#[test]
fn missing_and_broken_inputs_are_clear_errors() {
    let d = scratch("errors");
    let out = tracekit(&["profile", d.join("nothing").to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing.trace"), "{err}");

    // No .clog: method analysis still works, hints are absent.
    let base = example(&d, "8", "10");
    std::fs::remove_file(format!("{base}.clog")).unwrap();
    assert!(json(&["profile", &base, "--json"])["methods"].as_array().unwrap().len() > 5);
    let v = json(&["problems", &base, "--brb", "--json"]);
    assert!(v["hints"].as_array().unwrap().is_empty());
    let out = tracekit(&["problems", &base, "--method", "onDraw", "--when", "CPU > 0.5"]);
    assert!(!out.status.success());

    // A corrupt context log names the file and the byte offset.
    let base = example(&d.join("c"), "8", "10");
    let clog = format!("{base}.clog");
    let mut bytes = std::fs::read(&clog).unwrap();
    let data = bytes.windows(5).position(|w| w == b"*end\n").unwrap() + 5 + 13;
    bytes[data..data + 4].copy_from_slice(&999i32.to_be_bytes());
    std::fs::write(&clog, &bytes).unwrap();
    let out = tracekit(&["info", &base]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("s.clog") && err.contains(&format!("byte {data}")), "{err}");

    // A truncated trace is repaired, and the repair is reported.
    let base = example(&d.join("t"), "8", "10");
    let trace = format!("{base}.trace");
    let bytes = std::fs::read(&trace).unwrap();
    std::fs::write(&trace, &bytes[..bytes.len() - 100]).unwrap();
    let out = tracekit(&["info", &base, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!v["repairs"].as_array().unwrap().is_empty());

    // Bad conditions are explained.
    let base = example(&d.join("q"), "8", "10");
    let out = tracekit(&["profile", &base, "--when", "Nope > 1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("Screen orientation"));
}

/// Golden reports: the text output of the commands on a small fixed example.
/// Set `UPDATE_GOLDEN=1` to rewrite them after an intended change.
#[test]
fn golden_reports() {
    let d = scratch("golden");
    let base = example(&d, "42", "12");
    let cases: [(&str, Vec<&str>); 4] = [
        ("profile.txt", vec!["profile", &base, "--limit", "12"]),
        (
            "calltree.txt",
            vec!["calltree", &base, "--depth", "3", "--min-percent", "1"],
        ),
        (
            "problems.txt",
            vec![
                "problems",
                &base,
                "--method",
                "LayerView.onDraw",
                "--when",
                "Screen orientation == 1",
            ],
        ),
        ("context.txt", vec!["context", &base, "--at", "5000000"]),
    ];
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for (file, args) in cases {
        let out = ok(&args).replace(&base, "BASE");
        let path = golden.join(file);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &out).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
        assert_eq!(out, want, "{file} differs from the golden file");
    }
}

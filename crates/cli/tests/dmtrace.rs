//! End to end: the real `tracekit` binary on the hand-made Android method
//! traces of `crates/dmtrace/tests/fixtures` (versions 1 to 5, every clock,
//! streamed or not) and on damaged copies of them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tracekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .output()
        .expect("run tracekit")
}

/// Copies fixture `name` into a fresh scratch dir as `base.trace` (bytes
/// possibly changed by `edit`) and returns the base path.
fn stage(name: &str, base: &str, edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../dmtrace/tests/fixtures")
        .join(name);
    let dir: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dmtrace-e2e-{base}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = std::fs::read(src).unwrap();
    edit(&mut bytes);
    std::fs::write(dir.join(format!("{base}.trace")), bytes).unwrap();
    dir.join(base).to_string_lossy().into_owned()
}

#[test]
fn every_fixture_reads_through_the_cli() {
    for (file, clock, threads) in [
        ("v1-cpu.trace", "thread-cpu", "2"),
        ("v2-wall-repairs.trace", "wall", "2"),
        ("v3-cpu-wrap.trace", "thread-cpu", "1"),
        ("v3-dual.trace", "dual", "2"),
        ("streaming-dual.trace", "dual", "1"),
        ("v5-dual.trace", "dual", "1"),
        ("v4-wall-streaming.trace", "wall", "2"),
    ] {
        let base = stage(file, file.trim_end_matches(".trace"), |_| {});
        let out = tracekit(&["info", &base]);
        assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_owned()))
                .unwrap_or_default()
        };
        assert_eq!(field("clock"), clock, "{file}:\n{text}");
        assert_eq!(field("threads"), threads, "{file}:\n{text}");
    }
}

#[test]
fn a_wall_clock_trace_idle_for_forty_minutes_keeps_its_time() {
    // The main thread idles twice for 40 minutes (each gap over 2^31 µs):
    // the whole 80 minutes are there, and no time went backwards.
    let base = stage("v2-wall-idle.trace", "idle", |_| {});
    let out = tracekit(&["info", &base, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = v["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["clock-wrap"], "{v}");
    let prof = tracekit(&["profile", &base, "--json", "--thread", "main"]);
    let p: serde_json::Value = serde_json::from_slice(&prof.stdout).unwrap();
    let looper = p["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "loop")
        .unwrap();
    assert_eq!(looper["incl_real_us"].as_f64().unwrap(), 4_800_009_900.0);
}

#[test]
fn an_unknown_clock_is_reported_as_a_repair() {
    let base = stage("v2-wall-repairs.trace", "bogus", |b| {
        let at = b.windows(10).position(|w| w == b"clock=wall").unwrap();
        b[at + 6..at + 10].copy_from_slice(b"bogs");
    });
    let out = tracekit(&["info", &base]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown-clock") && err.contains("\"bogs\""), "{err}");
}

#[test]
fn repairs_are_reported() {
    let base = stage("v3-cpu-wrap.trace", "wrap", |_| {});
    let text = String::from_utf8(tracekit(&["info", &base]).stdout).unwrap();
    for code in ["clock-wrap", "data-file-overflow", "open-at-end", "truncated-record"] {
        assert!(text.contains(code), "{code} missing from:\n{text}");
    }
}

#[test]
fn damaged_traces_fail_with_file_and_offset() {
    // The binary header of v3-dual.trace starts right after "*end\n".
    let header_at = |b: &Vec<u8>| b.windows(5).position(|w| w == b"*end\n").unwrap() + 5;
    let base = stage("v3-dual.trace", "badmagic", |b| {
        let at = header_at(b);
        b[at] = b'X';
    });
    let out = tracekit(&["info", &base]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let fixture =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../dmtrace/tests/fixtures/v3-dual.trace")).unwrap();
    let at = header_at(&fixture);
    assert!(
        err.contains("badmagic.trace") && err.contains(&format!("byte {at}")),
        "{err}"
    );
    assert!(err.contains("magic"), "{err}");

    let base = stage("v3-dual.trace", "cut", |b| b.truncate(100));
    let out = tracekit(&["info", &base]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cut.trace") && err.contains("line ") && err.contains("byte "),
        "{err}"
    );
}

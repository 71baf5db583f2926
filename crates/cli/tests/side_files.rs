//! End to end: every file tracekit reads besides the trace itself (CFGs,
//! edge models, recording files, emulator files, profiles, context logs) is
//! refused when it is a FIFO or a device instead of blocking or growing
//! without bound, and text that is not UTF-8 is reported with the file and
//! byte offset. Each command runs under a time limit, so a regression fails
//! instead of hanging the test suite.

mod native_common;

use native_common::{build, work_dir, TRACEKIT};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs tracekit with `args`; fails the test if it has not ended in 20 s.
fn within_limit(args: &[&str]) -> Output {
    let mut child = Command::new(TRACEKIT)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tracekit {args:?} hung (still running after 20 s)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Asserts that `args` fail (exit 1) and that stderr names `file` and says `what`.
fn refused(args: &[&str], file: &str, what: &str) {
    let out = within_limit(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.starts_with("tracekit: error: "), "{args:?}: {err}");
    assert!(
        err.contains(file) && err.contains(what),
        "{args:?}: want {file:?} and {what:?} in: {err}"
    );
    assert_eq!(err.matches(what).count(), 1, "{args:?}: said twice: {err}");
}

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

fn dev_zero(p: &Path) {
    let _ = std::fs::remove_file(p);
    std::os::unix::fs::symlink("/dev/zero", p).unwrap();
}

const NOT_REGULAR: &str = "not a regular file";

/// Puts something that is not a regular file at a path.
type MakeFile = fn(&Path);

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn cfg_and_model_files_must_be_regular_files_of_text() {
    let d = work_dir("side-cfg");
    let cfg = d.join("cfg.json");
    std::fs::write(
        &cfg,
        r#"{"methods": [{"name": "m", "entry": "A", "exit": "C", "edges": [["A","B"], ["B","C"]]}]}"#,
    )
    .unwrap();
    let encode = |cfg: &Path, extra: &[&str]| {
        let mut a = vec!["paths", "encode", "--cfg", s(cfg), "--method", "m", "--path", "A,B,C"];
        a.extend_from_slice(extra);
        a.iter().map(|x| x.to_string()).collect::<Vec<_>>()
    };
    let run = |args: Vec<String>, file: &str, what: &str| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&a, file, what)
    };
    let fifo = d.join("cfg-fifo.json");
    mkfifo(&fifo);
    run(encode(&fifo, &["--scheme", "pap"]), "cfg-fifo.json", NOT_REGULAR);
    let zero = d.join("cfg-zero.json");
    dev_zero(&zero);
    run(encode(&zero, &["--scheme", "pap"]), "cfg-zero.json", NOT_REGULAR);
    let model = d.join("model.tsv");
    mkfifo(&model);
    run(
        encode(&cfg, &["--scheme", "adaptracer", "--model", s(&model)]),
        "model.tsv",
        NOT_REGULAR,
    );
    // Not UTF-8: the file and the byte offset of the bad byte.
    let bad = d.join("bad.json");
    std::fs::write(&bad, b"{\"methods\": [{\"name\": \"m\xff\"}]}").unwrap();
    run(encode(&bad, &["--scheme", "pap"]), "bad.json", "byte offset 24");
}

/// A real recording of a small threaded program.
fn recording(dir: &Path) -> PathBuf {
    let exe = build(dir, "threads.c", &[]);
    let rec = dir.join("rec");
    let out = Command::new(TRACEKIT)
        .args(["record", "--context", "none", "-o"])
        .arg(&rec)
        .arg("--")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    rec
}

/// A copy of recording `rec` (files only) in `to`.
fn copy(rec: &Path, to: &Path) -> PathBuf {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(rec).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
    to.to_owned()
}

fn file_starting(dir: &Path, prefix: &str) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix}* in {}", dir.display()))
}

#[test]
fn every_file_of_a_recording_must_be_a_regular_file() {
    let d = work_dir("side-rec");
    let rec = recording(&d);
    let tkt = file_starting(&rec, "thread-");
    let maps = file_starting(&rec, "maps-");
    let maps = maps.file_name().unwrap().to_str().unwrap();
    let tkt = tkt.file_name().unwrap().to_str().unwrap();
    let cases: [(&str, MakeFile); 8] = [
        ("recording.json", mkfifo),
        ("recording.json", dev_zero),
        ("context.jsonl", mkfifo),
        ("clock-1-0.txt", mkfifo),
        (maps, dev_zero),
        (maps, mkfifo),
        (tkt, mkfifo),
        ("thread-1-1-0.tkt", dev_zero),
    ];
    for (i, (name, make)) in cases.iter().enumerate() {
        let c = copy(&rec, &d.join(format!("case-{i}")));
        make(&c.join(name));
        refused(&["replay", s(&c)], name, NOT_REGULAR);
        refused(&["info", s(&c)], name, NOT_REGULAR);
    }
    // Text files that are not UTF-8 name the byte offset.
    let c = copy(&rec, &d.join("utf8-maps"));
    let m = file_starting(&c, "maps-");
    let mut bytes = std::fs::read(&m).unwrap();
    let nl = bytes.iter().position(|&b| b == b'\n').unwrap();
    bytes.insert(nl + 3, 0xff);
    std::fs::write(&m, bytes).unwrap();
    refused(
        &["replay", s(&c)],
        m.file_name().unwrap().to_str().unwrap(),
        &format!("byte offset {}", nl + 3),
    );
    let c = copy(&rec, &d.join("utf8-context"));
    std::fs::write(c.join("context.jsonl"), b"{\"present\":[],\"absent\":[]}\n{\"t\xc3(\n").unwrap();
    refused(&["replay", s(&c)], "context.jsonl", "byte offset 30 (line 2)");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn emulator_run_files_and_profiles_must_be_regular_files() {
    let d = work_dir("side-emu");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../emu/tests/data/arm-fork");
    let run = |tag: &str| {
        let dir = d.join(tag);
        std::fs::create_dir_all(dir.join("raw")).unwrap();
        for f in ["pid-100.blocks", "pid-100.counts", "pid-101.blocks", "pid-101.counts"] {
            std::fs::copy(data.join(f), dir.join("raw").join(f)).unwrap();
        }
        let record = serde_json::json!({
            "arch": "arm", "qemu": "qemu-arm", "plugin": "libtracekit_qemu_plugin.so",
            "program": data.join("fork"), "args": [], "mode": "tb", "exit_code": 0,
            "signal": null, "wall_s": 0.05, "profile": "armv7-cortex-a8",
        });
        std::fs::write(dir.join("run.json"), record.to_string()).unwrap();
        dir
    };
    let ok = run("ok");
    let out = within_limit(&["emu", "report", s(&ok)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let dir = run("run-json");
    mkfifo(&dir.join("run.json"));
    refused(&["emu", "report", s(&dir)], "run.json", NOT_REGULAR);
    let dir = run("blocks");
    mkfifo(&dir.join("raw/pid-100.blocks"));
    refused(&["emu", "report", s(&dir)], "pid-100.blocks", NOT_REGULAR);
    let dir = run("counts");
    dev_zero(&dir.join("raw/pid-101.counts"));
    refused(&["emu", "blocks", s(&dir)], "pid-101.counts", NOT_REGULAR);
    let fifo = d.join("mine.profile");
    mkfifo(&fifo);
    refused(
        &["emu", "report", s(&ok), "--profile", s(&fifo)],
        "mine.profile",
        NOT_REGULAR,
    );
    refused(
        &["emu", "profile", "import", s(&fifo), "--into", s(&ok)],
        "mine.profile",
        NOT_REGULAR,
    );
    let dir = run("utf8");
    let log = dir.join("raw/pid-100.blocks");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.insert(40, 0xfe);
    std::fs::write(&log, bytes).unwrap();
    refused(&["emu", "report", s(&dir)], "pid-100.blocks", "byte offset 40");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_context_log_or_object_trace_that_is_not_a_file_is_refused() {
    let d = work_dir("side-clog");
    let out = within_limit(&["example", "-o", s(&d), "--duration-s", "5"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    mkfifo(&d.join("browser.clog"));
    refused(&["info", s(&d.join("browser"))], "browser.clog", NOT_REGULAR);
    // A .clog that is a directory is an error too, not a missing log.
    std::fs::remove_file(d.join("browser.clog")).unwrap();
    std::fs::create_dir(d.join("browser.clog")).unwrap();
    refused(&["info", s(&d.join("browser"))], "browser.clog", "is a directory");
    let otr = d.join("app.otr");
    mkfifo(&otr);
    refused(&["seqdiag", s(&otr)], "app.otr", NOT_REGULAR);
    let _ = std::fs::remove_dir_all(&d);
}

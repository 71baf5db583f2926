//! Errors that help: each names the file (or option) and the position,
//! and says what to do next where there is something to do.

mod common;

use std::process::{Command, Output};

fn error_of(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.starts_with("tracekit: error: "), "{stderr}");
    stderr
}

/// The example session in a temporary directory, and a copy of its trace
/// without the context log.
fn example() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ex");
    common::ok_stdout(&["example", "-o", out.to_str().unwrap(), "--duration-s", "30"]);
    let lone = dir.path().join("lone.trace");
    std::fs::copy(out.join("browser.trace"), &lone).unwrap();
    let base = out.join("browser").display().to_string();
    (dir, base, lone.display().to_string())
}

#[test]
fn context_commands_name_the_missing_context_log() {
    let (_dir, _, lone) = example();
    let e = error_of(&common::tracekit(&["context", &lone, "--at-us", "0"]));
    let clog = lone.replace(".trace", ".clog");
    assert!(
        e.contains(&format!(
            "{lone}: no context log beside the trace: context commands need {clog}"
        )),
        "{e}"
    );
    let e = error_of(&common::tracekit(&["profile", &lone, "--when", "CPU > 0.5"]));
    assert!(
        e.contains("--when \"CPU > 0.5\"") && e.contains("NAME.clog beside NAME.trace"),
        "{e}"
    );
}

#[test]
fn conditions_point_at_the_column_and_suggest_the_label_meant() {
    let (_dir, base, _) = example();
    let e = error_of(&common::tracekit(&[
        "profile",
        &base,
        "--when",
        "Screen orientation == ",
    ]));
    assert!(
        e.contains("--when \"Screen orientation == \": condition: expected a value at column 23"),
        "{e}"
    );
    let e = error_of(&common::tracekit(&[
        "profile",
        &base,
        "--when",
        "Screen orientatoin == 1",
    ]));
    assert!(e.contains("did you mean \"Screen orientation\"?"), "{e}");
    let e = error_of(&common::tracekit(&[
        "problems",
        &base,
        "--method",
        "GeckoLayerClient.setPageRect",
        "--when",
        "(CPU > 0.5",
    ]));
    assert!(e.contains("missing `)` at column 11 for the `(` at column 1"), "{e}");
}

#[test]
fn a_cut_trace_is_reported_with_its_byte_offset() {
    let (dir, base, _) = example();
    let bytes = std::fs::read(format!("{base}.trace")).unwrap();
    let cut = dir.path().join("cut.trace");
    std::fs::write(&cut, &bytes[..100]).unwrap();
    let e = error_of(&common::tracekit(&["info", cut.to_str().unwrap()]));
    let at = format!("{}: line ", cut.display());
    assert!(e.contains(&at) && e.contains("(byte "), "{e}");
}

#[test]
fn a_missing_emulator_is_named_with_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    // A PATH without QEMU.
    let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(["emu", "run", "--arch", "x86_64", "-o"])
        .arg(dir.path().join("run"))
        .args(["--", "/bin/true"])
        .env("PATH", dir.path())
        .output()
        .unwrap();
    let e = error_of(&out);
    assert!(
        e.contains("qemu-x86_64 not found on PATH") && e.contains("apt install qemu-user"),
        "{e}"
    );
    assert!(!dir.path().join("run").exists(), "nothing was started");
}

#[test]
fn a_missing_asm_library_is_named_with_how_to_install_it() {
    if which("java").is_none() {
        eprintln!("skipped: java absent (the check for ASM comes after it)");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(["paths", "instrument", "no.jar", "-o", "out.jar"])
        .env("TRACEKIT_ASM_CLASSPATH", "/no/such/asm.jar")
        .output()
        .unwrap();
    let e = error_of(&out);
    assert!(
        e.contains("/no/such/asm.jar: not found") && e.contains("apt install libasm-java"),
        "{e}"
    );
}

fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[test]
fn energy_without_power_names_the_file_and_the_ways_to_add_power() {
    let (_dir, _, lone) = example();
    let e = error_of(&common::tracekit(&["energy", &lone]));
    assert!(e.contains(&format!("{lone}: no power data")), "{e}");
    assert!(
        e.contains("--power FILE") && e.contains("tracekit record --context power"),
        "{e}"
    );
    let e = error_of(&common::tracekit(&["energy", &lone, "--slice", "no.such.Slice"]));
    assert!(
        e.contains(&format!("{lone}: no method or slice matches \"no.such.Slice\"")) && e.contains("tracekit profile"),
        "{e}"
    );
}

#[test]
fn an_output_in_a_missing_directory_is_named_as_given() {
    let (dir, base, _) = example();
    let out = dir.path().join("no/such/dir/s.pftrace");
    let e = error_of(&common::tracekit(&[
        "convert",
        &base,
        "--to",
        "perfetto",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert!(
        e.contains(&format!(
            "{}: cannot write: the directory {} does not exist",
            out.display(),
            out.parent().unwrap().display()
        )),
        "the path given, not a temporary one: {e}"
    );
    let html = dir.path().join("missing/s.html");
    let e = error_of(&common::tracekit(&[
        "report",
        &base,
        "--html",
        "-o",
        html.to_str().unwrap(),
    ]));
    assert!(
        e.contains(&format!("{}: cannot write: the directory", html.display())),
        "{e}"
    );
}

#[test]
fn emulator_reports_say_when_a_directory_is_not_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    for args in [
        vec!["emu", "report", &d],
        vec!["emu", "blocks", &d],
        vec!["emu", "profile", "uncategorized", &d],
    ] {
        let e = error_of(&common::tracekit(&args));
        assert!(
            e.contains(&format!("{d}: not an emulator run directory (no run.json)"))
                && e.contains("tracekit emu run -o DIR"),
            "{args:?}: {e}"
        );
    }
    let missing = dir.path().join("nope").display().to_string();
    let e = error_of(&common::tracekit(&["emu", "report", &missing]));
    assert!(e.contains(&format!("{missing}: no such directory")), "{e}");
}

#[test]
fn ring_sizes_out_of_range_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rec");
    for (flag, value) in [("--ring-kb", "10"), ("--ring-max-kb", "99999999999999999")] {
        let run = common::tracekit(&["record", flag, value, "-o", out.to_str().unwrap(), "--", "true"]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("invalid value '{value}' for '{flag} <KIB>'")) && stderr.contains("64..=1048576"),
            "{stderr}"
        );
        assert!(!out.exists(), "nothing recorded");
    }
}

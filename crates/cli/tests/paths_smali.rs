//! `tracekit paths instrument-apk` from the command line: a directory of
//! smali in, instrumented smali out (no Android tools needed for this
//! form); malformed smali fails with file, line and column; every scheme's
//! flags are the JVM `instrument`'s.

use std::path::{Path, PathBuf};
use std::process::Command;

const TK: &str = env!("CARGO_BIN_EXE_tracekit");

/// A scratch directory removed when the test ends, pass or fail.
fn workdir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tk-paths-{name}-"))
        .tempdir()
        .unwrap()
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../smali/tests/corpus")
}

#[test]
fn instruments_a_smali_directory_under_each_scheme() {
    let tmp = workdir("ok");
    let dir = tmp.path();
    for (scheme, extra) in [
        ("blpp", &[][..]),
        ("pap", &["--verify"][..]),
        ("adaptracer", &["--context", "none"][..]),
    ] {
        let out = dir.join(scheme);
        let o = Command::new(TK)
            .args(["paths", "instrument-apk"])
            .arg(corpus())
            .arg("-o")
            .arg(&out)
            .args(["--scheme", scheme])
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(err.contains("methods instrumented (0 skipped)"), "{err}");
        let text = std::fs::read_to_string(out.join("workload-main.smali")).unwrap();
        assert!(text.contains("Ltracekit/rt/Rt;->exit(IJ[JI)V"), "no exit probe");
        let tables = std::fs::read_to_string(out.join("tracekit-resources/tracekit/tables.txt")).unwrap();
        assert!(tables.starts_with(&format!("scheme {scheme} ")), "{}", &tables[..40]);
    }
}

#[test]
fn malformed_smali_names_file_line_and_column() {
    let tmp = workdir("bad");
    let dir = tmp.path();
    let src = dir.join("in");
    std::fs::create_dir_all(&src).unwrap();
    let text = std::fs::read_to_string(corpus().join("workload-main.smali")).unwrap();
    std::fs::write(
        src.join("Bad.smali"),
        text.replacen("if-nez v0, :ok", "if-nez v0, :nowhere", 1),
    )
    .unwrap();
    let o = Command::new(TK)
        .args(["paths", "instrument-apk"])
        .arg(&src)
        .arg("-o")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("Bad.smali:") && err.contains(": label :nowhere is not defined in this method"),
        "{err}"
    );
    let line = text.lines().position(|l| l.contains("if-nez v0, :ok")).unwrap() + 1;
    assert!(err.contains(&format!("Bad.smali:{line}:16:")), "{err}");
}

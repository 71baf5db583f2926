//! Helpers shared by the native recorder's end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub const TRACEKIT: &str = env!("CARGO_BIN_EXE_tracekit");

pub fn src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/native").join(name)
}

/// A test's scratch directory, removed when the test ends (passed or not).
pub struct WorkDir(PathBuf);

impl std::ops::Deref for WorkDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for WorkDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn work_dir(tag: &str) -> WorkDir {
    let d = std::env::temp_dir().join(format!("tracekit-native-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    WorkDir(d)
}

pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Compiles a test program with -finstrument-functions; returns its path.
pub fn build(dir: &Path, source: &str, extra: &[&str]) -> PathBuf {
    let cpp = source.ends_with(".cpp");
    let stem = Path::new(source).file_stem().unwrap().to_str().unwrap();
    let shared = extra.contains(&"-shared");
    let out = dir.join(if shared { format!("{stem}.so") } else { stem.to_owned() });
    let mut c = Command::new(if cpp { "g++" } else { "cc" });
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rt/include");
    c.args(["-O0", "-g", "-finstrument-functions", "-pthread"])
        .arg("-I")
        .arg(include)
        .arg("-o")
        .arg(&out)
        .arg(src(source))
        .args(extra);
    run(&mut c);
    out
}

/// `tracekit record --context none -o DIR -- CMD…` then `tracekit replay --json`.
pub fn record_and_replay(rec: &Path, extra: &[&str], cmd: &[&str]) -> serde_json::Value {
    record_ending(rec, extra, cmd, 0).1
}

/// [`record_and_replay`] of a program that ends with `code` (`record`
/// passes it through: N for exit N, 128+S for signal S); also returns
/// record's stderr.
pub fn record_ending(rec: &Path, extra: &[&str], cmd: &[&str], code: i32) -> (String, serde_json::Value) {
    let status = Command::new(TRACEKIT)
        .args(["record", "--context", "none", "-o"])
        .arg(rec)
        .args(extra)
        .arg("--")
        .args(cmd)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&status.stderr).into_owned();
    assert_eq!(status.status.code(), Some(code), "record: {stderr}");
    let v = serde_json::from_str(&run(Command::new(TRACEKIT).arg("replay").arg(rec).arg("--json"))).unwrap();
    (stderr, v)
}

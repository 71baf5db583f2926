//! Helpers shared by the CLI's end-to-end tests: run the real binary.

#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Runs `tracekit` with `args`.
pub fn tracekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .output()
        .expect("run tracekit")
}

/// Runs `tracekit`, asserts success, returns stdout.
pub fn ok_stdout(args: &[&str]) -> String {
    let out = tracekit(args);
    assert!(
        out.status.success(),
        "tracekit {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `tracekit`, asserts success, parses stdout as JSON.
pub fn ok_json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok_stdout(args)).unwrap()
}

/// The repository's root directory.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Builds the QEMU plugin once per test binary, in its own target
/// directory so the nested cargo does not wait for the lock the outer
/// `cargo test` holds; returns the library's path.
pub fn emu_plugin() -> &'static Path {
    static PLUGIN: OnceLock<PathBuf> = OnceLock::new();
    PLUGIN.get_or_init(|| {
        let target = repo_root().join("target/emu-plugin");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "--release",
                "--locked",
                "-p",
                "tracekit-qemu-plugin",
                "--target-dir",
            ])
            .arg(&target)
            .current_dir(repo_root())
            .status()
            .expect("run cargo");
        assert!(status.success(), "building the plugin failed");
        target.join("release/libtracekit_qemu_plugin.so")
    })
}

/// `../shared/realdata` beside the workspace (or `TRACEKIT_REALDATA`);
/// `None`, said on stderr, when the folder is absent.
pub fn realdata() -> Option<PathBuf> {
    let dir = std::env::var_os("TRACEKIT_REALDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/realdata"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: realdata folder absent ({})", dir.display());
        None
    }
}

//! Helpers shared by the CLI's end-to-end tests: run the real binary.

#![allow(dead_code)] // each test file uses its own subset

use std::process::{Command, Output};

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

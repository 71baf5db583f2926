//! `read_path` refuses what could block or never end, and names the file.

use tracekit_power::{read_path, Error};

#[test]
fn refuses_devices_and_fifos() {
    let e = read_path(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(matches!(e, Error::NotRegular { .. }), "{e}");
    assert!(e.to_string().starts_with("/dev/zero:"));
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    assert!(matches!(read_path(&fifo), Err(Error::NotRegular { .. })));
    assert!(matches!(read_path(dir.path()), Err(Error::NotRegular { .. })));
}

#[test]
fn missing_and_unrecognised_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.csv");
    let e = read_path(&missing).unwrap_err();
    assert!(
        matches!(e, Error::Io { .. }) && e.to_string().contains("nope.csv"),
        "{e}"
    );
    let other = dir.path().join("other.txt");
    std::fs::write(&other, "hello\n").unwrap();
    let e = read_path(&other).unwrap_err();
    assert!(
        matches!(e, Error::Unrecognised { .. }) && e.to_string().contains("other.txt"),
        "{e}"
    );
}

#[test]
fn reads_a_file_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.txt");
    std::fs::write(&p, "# BattOr\n0.00 6.5 4307.7\n").unwrap();
    let s = read_path(&p).unwrap();
    assert_eq!(s.name, "run.txt");
    assert_eq!(s.counters.len(), 2);
}

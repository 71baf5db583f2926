//! End to end: the example generator (a real binary, built by `cargo test`)
//! writes traces record by record to disk; the reader and the
//! `android_trace_log` crate read them back from the file.

use std::path::PathBuf;
use std::process::Command;
use tracekit_dmtrace::read_path;
use tracekit_model::{CallKind, Clocks};

/// `target/<profile>/examples/gen_dmtrace`, next to this test's `deps/` dir.
fn generator() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    profile_dir
        .join("examples")
        .join(format!("gen_dmtrace{}", std::env::consts::EXE_SUFFIX))
}

#[test]
fn generated_traces_read_back_for_every_clock() {
    let gen = generator();
    assert!(gen.exists(), "example not built at {}", gen.display());
    let dir = std::env::temp_dir().join(format!("tracekit-dmtrace-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for clock in ["dual", "wall", "thread-cpu"] {
        let path = dir.join(format!("gen-{clock}.trace"));
        let status = Command::new(&gen).arg(&path).arg("50000").arg(clock).status().unwrap();
        assert!(status.success());
        let s = read_path(&path).unwrap();
        assert_eq!(s.clocks, Clocks::from_name(clock).unwrap());
        assert!(s.repairs.is_empty(), "{:?}", s.repairs);
        let stated: usize = s
            .properties
            .iter()
            .find(|(k, _)| k == "num-method-calls")
            .unwrap()
            .1
            .parse()
            .unwrap();
        assert_eq!(s.call_event_count(), stated);
        assert!(stated >= 50_000);
        assert_eq!(s.threads.len(), 8);
        assert_eq!(s.processes[0].pid, 4242);
        let unwinds = s
            .thread_calls()
            .flat_map(|(_, _, c)| c.iter())
            .filter(|e| e.kind == CallKind::Unwind)
            .count();
        assert!(unwinds > 0);
        let bytes = std::fs::read(&path).unwrap();
        let theirs = android_trace_log::parse(&bytes).unwrap();
        assert_eq!(theirs.events.len(), stated);
        // Written by tracekit from the session, the file reads back the same.
        let again = dir.join(format!("again-{clock}.trace"));
        tracekit_dmtrace::write_path(&s, &again).unwrap();
        let t = read_path(&again).unwrap();
        assert_eq!(t.call_event_count(), stated);
        for ((_, _, a), (_, _, b)) in s.thread_calls().zip(t.thread_calls()) {
            assert!(a.iter().eq(b.iter()));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

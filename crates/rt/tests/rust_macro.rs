//! The `#[trace]` attribute and the Rust API record named calls, markers and
//! objects. The runtime reads its configuration when the process starts, so
//! the test runs itself again as a child with `TRACEKIT_DIR` set.

use tracekit_recording::thread_file::{read_thread_file, RawEvent};
use tracekit_rt_format::ExtKind;

#[tracekit_rt::trace]
fn double(n: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    2 * n
}

#[tracekit_rt::trace]
fn outer() -> Result<u32, String> {
    tracekit_rt::marker("brb");
    Ok(double(double(3)) + double(0))
}

#[test]
fn traced_rust_functions_record_named_calls() {
    if std::env::var_os("TRACEKIT_DIR").is_some() {
        // The child: do the traced work.
        tracekit_rt::object_created("Widget", 0x1234);
        assert_eq!(outer(), Ok(12));
        return;
    }
    let dir = std::env::temp_dir().join(format!("tracekit-rt-macro-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "traced_rust_functions_record_named_calls",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TRACEKIT_DIR", &dir)
        .env("TRACEKIT_BUFFER_MB", "1")
        .status()
        .unwrap();
    assert!(status.success());
    let mut seen = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "tkt") {
            for (_, ev) in read_thread_file(&p).unwrap().events {
                if let RawEvent::Ext(x) = ev {
                    let name = x.strings.first().cloned().unwrap_or_default();
                    match x.sub {
                        ExtKind::NamedEnter => seen.push(format!("> {name}")),
                        ExtKind::NamedExit => seen.push(format!("< {name}")),
                        ExtKind::Marker => seen.push(format!("! {name}")),
                        ExtKind::ObjectCreated => seen.push(format!("C {name} {:x}", x.object_id)),
                        _ => {}
                    }
                }
            }
        }
    }
    let m = "rust_macro::";
    let want: Vec<String> = [
        "C Widget 1234".to_string(),
        format!("> {m}outer"),
        "! brb".to_string(),
        format!("> {m}double"),
        format!("< {m}double"),
        format!("> {m}double"),
        format!("< {m}double"),
        format!("> {m}double"),
        format!("< {m}double"),
        format!("< {m}outer"),
    ]
    .to_vec();
    assert_eq!(seen, want);
    let _ = std::fs::remove_dir_all(&dir);
}

//! `sniff` on the first 64 KiB of every real file in `../shared/realdata/`:
//! the Perfetto traces are recognised, nothing else (Android method traces,
//! systrace, Chrome JSON, battery logs) is.

use std::path::PathBuf;

fn realdata() -> Option<PathBuf> {
    let root = std::env::var_os("TRACEKIT_REALDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata"));
    if root.exists() {
        Some(root)
    } else {
        eprintln!("skipped: realdata folder absent ({})", root.display());
        None
    }
}

#[test]
fn recognises_perfetto_traces_and_nothing_else() {
    let Some(root) = realdata() else {
        return;
    };
    let mut seen = (0, 0);
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let path = f.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let head = &bytes[..bytes.len().min(64 << 10)];
            let is_perfetto = dir.file_name().unwrap() == "perfetto";
            assert_eq!(tracekit_perfetto::sniff(head), is_perfetto, "{}", path.display());
            // A shorter head (a small read) decides the same.
            assert_eq!(
                tracekit_perfetto::sniff(&head[..head.len().min(100)]),
                is_perfetto,
                "{}",
                path.display()
            );
            if is_perfetto {
                seen.0 += 1;
            } else {
                seen.1 += 1;
            }
        }
    }
    assert_eq!(seen.0, 2);
    assert!(seen.1 >= 10, "{seen:?}");
}

#[test]
fn recognises_its_own_output_and_refuses_empty_input() {
    let s = tracekit_report::synthetic::session(1_000);
    let mut bytes = Vec::new();
    tracekit_perfetto::write(&s, &mut bytes).unwrap();
    assert!(tracekit_perfetto::sniff(&bytes[..bytes.len().min(64 << 10)]));
    assert!(tracekit_perfetto::sniff(&bytes[..16]));
    assert!(!tracekit_perfetto::sniff(&[]));
    assert!(!tracekit_perfetto::sniff(b"SLOW\x03\x00"));
    assert!(!tracekit_perfetto::sniff(b"{\"traceEvents\": []}"));
}

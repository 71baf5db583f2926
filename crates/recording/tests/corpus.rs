//! Replays the thread-file corpus: hand-made and fuzz-found inputs whose
//! name says what the reader must do (`ok-N-*`: decode N events;
//! `err-*`: fail with an offset, never panic).

use tracekit_recording::thread_file::read_thread_file;

#[test]
fn thread_file_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let r = read_thread_file(&p);
        if let Some(rest) = name.strip_prefix("ok-") {
            let want: usize = rest.split('-').next().unwrap().parse().unwrap();
            let t = r.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.events.len(), want, "{name}");
        } else {
            let err = r
                .err()
                .unwrap_or_else(|| panic!("{name} should not decode"))
                .to_string();
            assert!(err.contains("byte offset") && err.contains(&name), "{name}: {err}");
        }
        n += 1;
    }
    assert!(n >= 9);
}

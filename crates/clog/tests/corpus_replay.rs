//! Replays every file in `tests/corpus/`: files named `ok-*` must read,
//! `err-*` must fail with an error naming a byte offset inside the file, and
//! nothing may panic.

use std::fs;
use std::path::Path;

#[test]
fn corpus_files_behave() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut n = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = fs::read(&path).unwrap();
        let result = std::panic::catch_unwind(|| tracekit_clog::read(&bytes));
        let result = result.unwrap_or_else(|_| panic!("{name}: reader panicked"));
        if name.starts_with("ok-") {
            assert!(result.is_ok(), "{name}: {:?}", result.err());
        } else if name.starts_with("err-") {
            let e = result.expect_err(&name);
            assert!(
                e.offset() <= bytes.len() as u64,
                "{name}: offset {} past end",
                e.offset()
            );
        }
        n += 1;
    }
    assert!(n >= 5, "corpus too small: {n}");
}

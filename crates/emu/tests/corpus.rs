//! Replays the corpus of malformed inputs (`tests/corpus/`): every file must
//! be rejected with an error naming the file and a line (a byte offset for
//! the binary pack), never a panic.
//! Add a file here whenever a parser bug is found.

use std::path::Path;

use tracekit_emu::capture::parse_log;
use tracekit_emu::pack::Pack;
use tracekit_emu::profile::Profile;

#[test]
fn every_corpus_file_is_rejected_with_file_and_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let (err, place) = match path.extension().and_then(|e| e.to_str()) {
            Some("blocks") => (parse_log(&path, &text).map(|_| ()).unwrap_err().to_string(), "line "),
            Some("profile") => (
                Profile::parse(&path, &text).map(|_| ()).unwrap_err().to_string(),
                "line ",
            ),
            Some("pack") => (
                Pack::parse(&path, bytes.clone()).map(|_| ()).unwrap_err().to_string(),
                "byte ",
            ),
            _ => continue,
        };
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(err.contains(name) && err.contains(place), "{name}: {err}");
        seen += 1;
    }
    assert!(seen >= 21, "corpus went missing ({seen} files)");
}

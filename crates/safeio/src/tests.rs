use super::*;
use std::io::Write;

/// A scratch directory removed when the test ends.
fn scratch(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tracekit-safeio-{tag}-"))
        .tempdir()
        .unwrap()
}

#[test]
fn regular_files_are_read() {
    let scratch = scratch("regular");
    let d = scratch.path();
    let p = d.join("a.txt");
    std::fs::write(&p, "héllo\n").unwrap();
    assert_eq!(read_text(&p).unwrap(), "héllo\n");
    assert_eq!(read_bytes(&p).unwrap(), "héllo\n".as_bytes());
}

#[test]
fn devices_directories_and_fifos_are_refused() {
    let e = read_bytes(Path::new("/dev/zero")).unwrap_err();
    assert!(e.to_string().starts_with("/dev/zero: not a regular file"), "{e}");
    let scratch = scratch("kinds");
    let d = scratch.path();
    let e = read_text(d).unwrap_err();
    assert!(e.to_string().contains("is a directory"), "{e}");
    let fifo = d.join("fifo");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    // Opening a FIFO for reading would block until a writer came: the check
    // must refuse it before the open.
    let (tx, rx) = std::sync::mpsc::channel();
    let f2 = fifo.clone();
    std::thread::spawn(move || tx.send(read_text(&f2).map(|_| ()).map_err(|e| e.to_string())));
    let got = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("read_text blocked on a FIFO");
    assert!(got.unwrap_err().contains("not a regular file"));
    let e = open_regular(&d.join("missing")).unwrap_err();
    assert_eq!(e.kind, std::io::ErrorKind::NotFound);
}

#[test]
fn invalid_text_names_the_offset_and_line() {
    let scratch = scratch("utf8");
    let d = scratch.path();
    let p = d.join("bad.txt");
    let mut f = std::fs::File::create(&p).unwrap();
    f.write_all(b"ok\nfine \xff rest\n").unwrap();
    let e = read_text(&p).unwrap_err().to_string();
    assert!(
        e.contains("bad.txt: not UTF-8 text: invalid byte 0xff at byte offset 8 (line 2)"),
        "{e}"
    );
    let cut = text_of(&p, "é".as_bytes()[..1].to_vec()).unwrap_err().to_string();
    assert!(
        cut.contains("cut off inside a character at byte offset 0 (line 1)"),
        "{cut}"
    );
    let io: std::io::Error = read_text(&p).unwrap_err().into();
    assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
    assert!(io.to_string().contains("byte offset 8"));
}

#[test]
fn terminal_escapes_controls() {
    assert_eq!(terminal("main"), "main");
    assert!(matches!(terminal("main"), std::borrow::Cow::Borrowed(_)));
    assert_eq!(terminal("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
    assert_eq!(terminal("a\nb\tc\u{7f}\u{9b}"), "a\\nb\\tc\\u{7f}\\u{9b}");
    assert_eq!(terminal("x\u{202e}y"), "x\\u{202e}y");
    assert_eq!(
        terminal_lines("a\u{1b}]0;t\u{7}\n\tb\r\n"),
        "a\\u{1b}]0;t\\u{7}\n\tb\\r\n"
    );
    assert_eq!(terminal("naïve 東京"), "naïve 東京");
}

proptest::proptest! {
    #[test]
    fn escaped_text_has_no_controls(s in "\\PC*|[\\x00-\\x1f\\x7f-\\u{9f}a-z\\n]{0,40}") {
        proptest::prop_assert!(!terminal(&s).chars().any(|c| c.is_control()));
        proptest::prop_assert!(!terminal_lines(&s).chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        // Text without controls is left as it is.
        if !s.chars().any(|c| c.is_control()) {
            let t = terminal(&s);
            proptest::prop_assert_eq!(t.as_ref(), s.as_str());
        }
    }
}

#[test]
fn same_file_sees_through_spellings() {
    let scratch = scratch("same");
    let d = scratch.path();
    let a = d.join("a.jar");
    std::fs::write(&a, "x").unwrap();
    std::fs::hard_link(&a, d.join("b.jar")).unwrap();
    std::os::unix::fs::symlink(&a, d.join("c.jar")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    assert!(same_file(&a, &d.join("sub/../a.jar")));
    assert!(same_file(&a, &d.join("b.jar")));
    assert!(same_file(&a, &d.join("c.jar")));
    std::fs::write(d.join("other.jar"), "x").unwrap();
    assert!(!same_file(&a, &d.join("other.jar")));
    assert!(!same_file(&a, &d.join("missing.jar")));
}

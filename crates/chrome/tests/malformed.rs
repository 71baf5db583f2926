//! Bad input: every error names the file and the line:column and byte
//! offset of the problem; nothing panics, hangs or grows without bound; a
//! file cut anywhere keeps every complete event before the cut.

use std::path::Path;
use std::time::Duration;
use tracekit_chrome::{read_bytes, read_path, repair, Error};

fn err(text: &str) -> Error {
    match read_bytes(text.as_bytes(), "bad.json") {
        Err(e) => e,
        Ok(s) => panic!("accepted {text:?}: {} calls", s.call_event_count()),
    }
}

/// Asserts the error's place and that its message contains `what`.
fn assert_at(e: &Error, line: u64, column: u64, what: &str) {
    let text = e.to_string();
    assert!(text.starts_with(&format!("bad.json:{line}:{column}: ")), "{text}");
    assert!(text.contains(what), "{text} lacks {what:?}");
    assert!(e.offset().is_some());
}

#[test]
fn wrong_types_and_syntax_name_line_and_column() {
    let e = err("{\"traceEvents\": [\n{\"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"tid\": 1},\n  {\"ph\": 5}]}");
    assert_at(&e, 3, 10, "\"ph\" is not a string");
    let e = err("[{\"ph\": \"X\", \"ts\": \"soon\", \"dur\": 2}]");
    assert_at(&e, 1, 2, "\"ts\" is not a number");
    let e = err("[{\"ph\": \"B\", \"ts\": 1, \"pid\": {\"a\": 1}}]");
    assert_at(&e, 1, 2, "\"pid\" is not an integer or a string");
    let e = err("[\n{\"ph\": \"C\", \"ts\": 1, \"name\": \"c\", \"args\": 5}]");
    assert_at(&e, 2, 1, "\"args\" of a \"C\" event");
    let e = err("[{\"ph\": \"B\", \"ts\": 1}\n {\"ph\": \"E\", \"ts\": 2}]");
    assert_at(&e, 2, 2, "expected ',' or ']' after an event");
    let e = err("[{\"ph\": \"B\", \"ts\": 1,, \"tid\": 2}]");
    assert_at(&e, 1, 22, "expected a key");
    let e = err("[{\"ts\": 1}]");
    assert_at(&e, 1, 2, "without \"ph\"");
    let e = err("[{\"ph\": \"B\"}]");
    assert_at(&e, 1, 2, "without \"ts\"");
    let e = err("{\"traceEvents\": 3}");
    assert_at(&e, 1, 17, "not an array");
    let e = err("  42");
    assert_at(&e, 1, 3, "expected '[' or '{'");
    let e = err("[] x");
    assert_at(&e, 1, 4, "after the end of the trace");
    let e = err("[{\"ph\": \"B\", \"ts\": 1, \"name\": \"a\\qb\"}]");
    assert_at(&e, 1, 34, "invalid escape");
    let e = err("[{\"ph\": \"B\", \"ts\": 1, \"name\": \"tab\there\"}]");
    assert_at(&e, 1, 35, "control character");
    let e = err("{\"metadata\": {\"a\": tru}, \"traceEvents\": []}");
    assert_at(&e, 1, 23, "expected ident");
    let e = read_bytes(b"", "bad.json").unwrap_err();
    assert_at(&e, 1, 1, "empty");
    let e = read_bytes(b" \n\t ", "bad.json").unwrap_err();
    assert_at(&e, 2, 3, "empty");
}

#[test]
fn invalid_utf8_in_a_used_string_is_an_error() {
    let mut text = b"[{\"ph\": \"B\", \"ts\": 1,\n \"name\": \"a".to_vec();
    text.extend_from_slice(&[0xC3, 0x28]);
    text.extend_from_slice(b"\"}]");
    let e = read_bytes(&text, "bad.json").unwrap_err();
    assert_at(&e, 1, 2, "invalid UTF-8");
    // In a value tracekit passes over, as serde_json does when it ignores one.
    let mut text = b"[{\"ph\": \"B\", \"ts\": 1, \"args\": {\"x\": \"".to_vec();
    text.extend_from_slice(&[0xFF]);
    text.extend_from_slice(b"\"}, \"name\": \"ok\"}]");
    assert_eq!(read_bytes(&text, "ok.json").unwrap().call_event_count(), 2);
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let deep = format!(
        "[{{\"ph\": \"B\", \"ts\": 1, \"args\": {}{}}}]",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let e = read_bytes(deep.as_bytes(), "bad.json").unwrap_err();
    assert_at(&e, 1, 159, "nested deeper than 128");
    let deep = format!("{{\"other\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    let e = read_bytes(deep.as_bytes(), "bad.json").unwrap_err();
    assert!(e.to_string().contains("nested deeper than 128"), "{e}");
}

/// Our own export: one event per line, so a cut's complete events are the
/// lines ending before it.
fn sample_trace() -> Vec<u8> {
    let s = tracekit_report::synthetic::session(200);
    let mut out = Vec::new();
    tracekit_chrome::write(&s, &mut out).unwrap();
    out
}

#[test]
fn a_cut_anywhere_keeps_every_complete_event() {
    let full = sample_trace();
    let whole = read_bytes(&full, "t.json").unwrap();
    assert!(whole.repairs.is_empty());
    let calls_before = |cut: usize| {
        // Call events are the lines starting {"ph":"B" or {"ph":"E" that
        // end (with their '}') before the cut.
        let mut n = 0;
        let mut start = 0;
        for (i, &b) in full.iter().enumerate() {
            if b == b'\n' {
                let line = &full[start..i];
                if line.starts_with(b"{\"ph\":\"B\"") || line.starts_with(b"{\"ph\":\"E\"") {
                    let end = start + line.iter().rposition(|&c| c == b'}').unwrap() + 1;
                    if end <= cut {
                        n += 1;
                    }
                }
                start = i + 1;
            }
        }
        n
    };
    let step = (full.len() / 700).max(1);
    for cut in (1..full.len()).step_by(step).chain([full.len() - 1, full.len() - 3]) {
        let s = read_bytes(&full[..cut], "t.json").unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        let kept_begins: usize = s
            .thread_calls()
            .map(|(_, _, c)| c.iter().filter(|e| e.kind == tracekit_model::CallKind::Enter).count())
            .sum();
        // Every B before the cut is kept (its E, if cut off, is repaired).
        let begins_before = {
            let text = &full[..cut];
            let mut n = 0;
            let mut at = 0;
            while let Some(i) = find(&text[at..], b"{\"ph\":\"B\"") {
                let line_end = text[at + i..].iter().position(|&c| c == b'\n');
                if line_end.is_some_and(|e| text[at + i + e - 1] == b',' || text[at + i + e - 1] == b'}') {
                    n += 1;
                }
                at += i + 1;
            }
            n
        };
        assert!(kept_begins >= begins_before, "cut at {cut}");
        assert!(s.call_event_count() >= calls_before(cut), "cut at {cut}");
        if cut < full.len() - 2 {
            assert!(s.repairs.iter().any(|r| r.code == repair::TRUNCATED), "cut at {cut}");
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn the_array_form_may_lack_its_closing_bracket() {
    let s = read_bytes(b"[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"name\":\"a\"},\n", "t.json").unwrap();
    assert_eq!(s.call_event_count(), 2);
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
    let s = read_bytes(
        b"[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"name\":\"a\"},{\"ph\":\"X\",\"ts\":5,\"d",
        "t.json",
    )
    .unwrap();
    assert_eq!(s.call_event_count(), 2);
    assert_eq!(s.repairs[0].code, repair::TRUNCATED);
    assert!(s.repairs[0].detail.contains("byte 38"), "{}", s.repairs[0].detail);
}

#[test]
fn non_regular_files_are_refused() {
    let e = read_path(Path::new("/dev/zero")).unwrap_err();
    assert!(e.to_string().starts_with("/dev/zero: a character device"), "{e}");
    let dir = std::env::temp_dir().join(format!("tracekit-chrome-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let e = read_path(&dir).unwrap_err();
    assert!(e.to_string().contains("a directory"), "{e}");
    let fifo = dir.join("trace.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        // Opening a FIFO with no writer blocks: the reader must not open it.
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || tx.send(read_path(&path).map(|_| ()).map_err(|e| e.to_string())));
        let got = rx.recv_timeout(Duration::from_secs(10)).expect("reading a FIFO hung");
        let e = got.unwrap_err();
        assert!(e.contains("a FIFO, not a regular file"), "{e}");
    } else {
        eprintln!("skipped the FIFO case: mkfifo unavailable");
    }
    let e = read_path(&dir.join("absent.json")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("{}: ", dir.join("absent.json").display())),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn large_values_tracekit_skips_are_not_held() {
    // A 20 MB systemTraceEvents string and a 200k-entry samples array.
    let mut text = b"{\"systemTraceEvents\": \"".to_vec();
    text.extend(std::iter::repeat_n(b'x', 20 << 20));
    text.extend_from_slice(b"\\\"\", \"samples\": [");
    for i in 0..200_000 {
        text.extend_from_slice(format!("{{\"ts\": {i}}},").as_bytes());
    }
    text.extend_from_slice(b"{}], \"traceEvents\": [{\"ph\":\"i\",\"ts\":3,\"name\":\"m\"}]}");
    let s = read_bytes(&text, "big.json").unwrap();
    assert_eq!(s.markers.len(), 1);
    let skipped: Vec<(&str, u64)> = s.skipped.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(skipped, [("systemTraceEvents", 1), ("samples", 200_001)]);
}

#[test]
fn extreme_times_neither_overflow_nor_panic() {
    // 1.8e19 ns apart: more than an i64 holds, as much as the u64 timeline does.
    let text = r#"[{"ph":"X","name":"a","ts":-9000000000000000,"dur":1,"tid":1},
        {"ph":"i","name":"m","ts":9000000000000000,"tid":1},
        {"ph":"C","name":"c","ts":9000000000000000,"args":{"v":1}},
        {"ph":"b","cat":"x","name":"s","id":1,"ts":-9000000000000000,"tid":1},
        {"ph":"e","cat":"x","name":"s","id":1,"ts":9000000000000000,"tid":1},
        {"ph":"X","name":"b","ts":9000000000000000,"dur":9000000000000000,"tid":1}]"#;
    let s = read_bytes(text.as_bytes(), "far.json").unwrap();
    assert_eq!(s.markers[0].ts_ns, 18_000_000_000_000_000_000);
    assert_eq!(s.counters[0].times, vec![i64::MAX]);
    assert_eq!(s.async_slices[0].ts_ns, 0);
    let mut out = Vec::new();
    tracekit_chrome::write(&s, &mut out).unwrap();
    assert!(read_bytes(&out, "again.json").is_ok());
    let e = read_bytes(br#"[{"ph":"B","ts":99999999999999999,"tid":1}]"#, "bad.json").unwrap_err();
    assert_at(&e, 1, 2, "\"ts\" is not a number");
}

//! Bad input: clear errors naming the file and the line (or the byte offset
//! in a compressed body), refusal of non-regular files, and cut captures
//! keeping every complete line.

mod common;

use common::{check_invariants, data, realdata};
use std::io::Write;
use tracekit_ftrace::{read_bytes, read_bytes_with_outcome, read_path, Error};

fn zlib(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_line_that_is_not_ftrace_names_the_file_and_line() {
    let mut text = std::fs::read(data("seed002_power.txt")).unwrap();
    text.extend_from_slice(b"this is not a trace line\nperiodic_power-3003 ( 3003) [000] .... 578.0: x: y\n");
    let e = read_bytes(&text, "capture.txt").unwrap_err();
    assert_eq!(e.line(), Some(38));
    let msg = e.to_string();
    assert!(msg.starts_with("capture.txt: line 38: "), "{msg}");
    assert!(msg.contains("this is not a trace line"), "{msg}");
}

#[test]
fn html_errors_count_lines_of_the_html_file() {
    let html = b"<!DOCTYPE html>\n<html><body>\n<script>var x = 1;</script>\n  <script class=\"trace-data\" type=\"application/text\">\n# tracer: nop\n  a-1 [000] ...1 1.000000: tracing_mark_write: B|1|x\n  garbage here\n  </script>\n</body></html>\n";
    let e = read_bytes(html, "t.html").unwrap_err();
    assert_eq!(e.line(), Some(7), "{e}");
}

#[test]
fn non_regular_files_are_refused() {
    for path in ["/dev/zero", "/dev/null"] {
        if std::path::Path::new(path).exists() {
            let e = read_path(std::path::Path::new(path)).unwrap_err();
            assert!(matches!(e, Error::Unsupported { .. }), "{e}");
            assert!(
                e.to_string().contains(path) && e.to_string().contains("not a regular file"),
                "{e}"
            );
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let e = read_path(dir.path()).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.map(|s| s.success()).unwrap_or(false) {
        // Opening a FIFO for reading blocks until a writer comes; give it one.
        let writer_path = fifo.clone();
        let writer = std::thread::spawn(move || {
            let mut w = std::fs::OpenOptions::new().write(true).open(writer_path).unwrap();
            let _ = w.write_all(b"# tracer: nop\n");
        });
        let e = read_path(&fifo).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        writer.join().unwrap();
    } else {
        eprintln!("skipped the FIFO case: mkfifo unavailable");
    }
    let e = read_path(&dir.path().join("missing.txt")).unwrap_err();
    assert!(
        matches!(e, Error::Io { .. }) && e.to_string().contains("missing.txt"),
        "{e}"
    );
}

#[test]
fn empty_and_unrecognised_inputs() {
    assert!(read_bytes(b"", "e").unwrap_err().to_string().contains("empty"));
    let e = read_bytes(b"<!DOCTYPE html>\n<html><script>var a;</script></html>", "x.html").unwrap_err();
    assert!(e.to_string().contains("x.html: HTML without trace text"), "{e}");
    let e = read_bytes(b"\x00\x01\x02 binary", "b.bin").unwrap_err();
    assert_eq!(e.line(), Some(1), "{e}");
}

#[test]
fn an_endless_line_is_an_error_not_unbounded_memory() {
    let mut text = b"# tracer: nop\n".to_vec();
    text.extend(std::iter::repeat_n(b'a', 3 << 20));
    let e = read_bytes(&text, "long").unwrap_err();
    assert_eq!(e.line(), Some(2), "{e}");
    assert!(e.to_string().contains("longer than 1 MiB"), "{e}");
}

#[test]
fn a_cut_capture_keeps_every_complete_line() {
    let full = std::fs::read(data("seed002_surfaceflinger.txt")).unwrap();
    let (whole, _) = read_bytes_with_outcome(&full, "x").unwrap();
    for cut in (1..full.len()).step_by(7) {
        let (s, o) = read_bytes_with_outcome(&full[..cut], "x").unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        check_invariants(&s, &o);
        // The lines before the cut are all there; only the cut one may be missing.
        let complete = full[..cut].iter().filter(|&&c| c == b'\n').count() as u64;
        assert!(o.lines == complete || o.lines == complete + 1);
        assert!(o.used + o.comments + o.skipped >= complete, "cut at {cut}: {o:?}");
        assert!(s.call_event_count() <= whole.call_event_count() + 2);
    }
}

#[test]
fn a_cut_compressed_body_keeps_what_inflated() {
    let text = std::fs::read(data("seed002_surfaceflinger.txt")).unwrap();
    let mut file = b"capturing trace... done\nTRACE:\n".to_vec();
    file.extend(zlib(&text));
    let (full, fo) = read_bytes_with_outcome(&file, "z").unwrap();
    assert_eq!(fo.lines, 43 + 2);
    assert!(full.repairs.iter().all(|r| r.code != "compressed-body-truncated"));
    let cut = &file[..file.len() - 20];
    let (s, o) = read_bytes_with_outcome(cut, "z").unwrap();
    check_invariants(&s, &o);
    assert!(s.repairs.iter().any(|r| r.code == "compressed-body-truncated"));
    assert!(o.lines > 2 && o.lines <= fo.lines);
}

#[test]
fn a_corrupt_compressed_body_names_the_byte() {
    let text = std::fs::read(data("seed002_surfaceflinger.txt")).unwrap();
    let mut file = b"TRACE:\n".to_vec();
    let body = zlib(&text.repeat(20));
    file.extend(&body);
    let mid = 7 + body.len() / 2;
    for b in &mut file[mid..mid + 16] {
        *b ^= 0x5A;
    }
    match read_bytes(&file, "bad.z") {
        Err(e @ Error::Compressed { .. }) => {
            let at = e.offset().unwrap();
            assert!(at >= 7 && at <= file.len() as u64, "{e}");
            assert!(e.to_string().starts_with("bad.z: byte "), "{e}");
        }
        // Flipped bits can still inflate (to garbage lines).
        Err(e) => assert!(e.line().is_some(), "{e}"),
        Ok(s) => panic!("corrupt body read as {} calls", s.call_event_count()),
    }
}

#[test]
fn crlf_and_lost_events_and_function_tracer_lines() {
    let text = b"# tracer: nop\r\n\
        CPU:1 [LOST 42 EVENTS]\r\n\
        ##### CPU 2 buffer started ####\r\n\
        \x20 app-10 ( 10) [001] ...1 5.000001: tracing_mark_write: B|10|work\r\n\
        \x20 app-10 ( 10) [001] ...1 5.000002: tracing_mark_write: hello marker\r\n\
        \x20 <idle>-0 [000] d..2 5.000003: do_idle <-cpu_startup_entry\r\n\
        \x20 app-10 ( 10) [001] ...1 5.000004: tracing_mark_write: E|10\r\n";
    let (s, o) = read_bytes_with_outcome(text, "crlf").unwrap();
    check_invariants(&s, &o);
    assert_eq!(s.lost_events, 42);
    assert_eq!((o.used, o.skipped, o.comments), (3, 1, 3));
    assert_eq!(s.call_event_count(), 2);
    assert_eq!(s.markers.len(), 1);
    assert_eq!(s.markers[0].name, "hello marker");
    assert_eq!(s.skipped, vec![("function tracer call".to_string(), 1)]);
}

#[test]
fn time_going_back_is_repaired_into_order() {
    let text = b"a-1 [000] ...1 10.0: tracing_mark_write: B|1|x\n\
        a-1 [000] ...1 9.0: tracing_mark_write: E\n\
        a-1 [000] ...1 11.0: tracing_mark_write: C|1|n|5\n";
    let (s, o) = read_bytes_with_outcome(text, "back").unwrap();
    check_invariants(&s, &o);
    assert_eq!(s.repairs[0].code, "time-backwards");
    assert_eq!(s.calls(tracekit_model::ThreadId(0)).times(), &[0, 0]);
}

#[test]
fn realdata_cut_anywhere_never_fails() {
    let Some(dir) = realdata() else { return };
    for name in ["catapult_decompressed_atrace_data.txt", "catapult_android_systrace.txt"] {
        let full = std::fs::read(dir.join(name)).unwrap();
        for cut in (0..full.len()).step_by(997) {
            match read_bytes_with_outcome(&full[..cut], name) {
                Ok((s, o)) => check_invariants(&s, &o),
                Err(e) => assert!(cut == 0 && e.to_string().contains("empty"), "{name} cut at {cut}: {e}"),
            }
        }
    }
}

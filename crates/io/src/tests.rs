use super::*;
use std::fs;

fn example(dir: &Path) -> PathBuf {
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        duration_s: 2.0,
        ..Default::default()
    });
    let base = dir.join("ex");
    save(&s, &base).unwrap();
    base
}

#[test]
fn names_trace_and_clog_open_the_same_session() {
    let d = tempfile::tempdir().unwrap();
    let base = example(d.path());
    for p in [base.clone(), with_ext(&base, "trace"), with_ext(&base, "clog")] {
        let l = open(&p).unwrap();
        assert_eq!(
            l.format,
            if p.extension().is_some_and(|e| e == "clog") {
                Format::ContextLog
            } else {
                Format::AndroidTrace
            }
        );
        assert_eq!(l.inputs.len(), 2, "{}", p.display());
        assert!(l.clog_path().is_some());
        assert!(!l.session.context.is_empty());
        assert_eq!(l.session.name, "ex");
    }
}

#[test]
fn content_decides_not_the_extension() {
    let d = tempfile::tempdir().unwrap();
    let base = example(d.path());
    let odd = d.path().join("renamed.bin");
    fs::copy(with_ext(&base, "trace"), &odd).unwrap();
    assert_eq!(detect(&odd).unwrap().format, Format::AndroidTrace);
    let otr = d.path().join("objects.trace");
    fs::write(&otr, "C 10 0x1f 5 Alarm\nD 10 0x1f 9 Alarm\n").unwrap();
    assert_eq!(detect(&otr).unwrap().format, Format::ObjectTrace);
    assert_eq!(open(&otr).unwrap().session.objects.len(), 2);
}

#[test]
fn unknown_content_names_the_formats() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("notes.txt");
    fs::write(&p, "hello\n").unwrap();
    let e = open(&p).unwrap_err().to_string();
    assert!(e.contains("notes.txt") && e.contains("Android method trace"), "{e}");
    let e = open(&d.path().join("missing")).unwrap_err().to_string();
    assert!(e.contains("no such file") && e.contains("missing.trace"), "{e}");
}

#[test]
fn non_regular_files_are_refused() {
    let e = open(Path::new("/dev/zero")).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("pipe.trace");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = open(&fifo).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
}

extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

#[test]
fn an_unreadable_context_log_is_an_error_not_absent() {
    let d = tempfile::tempdir().unwrap();
    let base = example(d.path());
    let clog = with_ext(&base, "clog");
    fs::remove_file(&clog).unwrap();
    fs::create_dir(&clog).unwrap();
    let e = open(&base).unwrap_err().to_string();
    assert!(e.contains("ex.clog") && e.contains("directory"), "{e}");
}

#[test]
fn a_context_log_alone_says_where_the_trace_should_be() {
    let d = tempfile::tempdir().unwrap();
    let base = example(d.path());
    fs::remove_file(with_ext(&base, "trace")).unwrap();
    let e = open(&with_ext(&base, "clog")).unwrap_err().to_string();
    assert!(e.contains("ex.trace") && e.contains("not found"), "{e}");
}

#[test]
fn directories_that_are_not_recordings_are_explained() {
    let d = tempfile::tempdir().unwrap();
    let e = open(d.path()).unwrap_err().to_string();
    assert!(e.contains("not a recording"), "{e}");
    fs::write(d.path().join("run.json"), "{}").unwrap();
    let e = open(d.path()).unwrap_err().to_string();
    assert!(e.contains("emu report"), "{e}");
}

#[test]
fn outputs_never_overwrite_inputs() {
    let d = tempfile::tempdir().unwrap();
    let base = example(d.path());
    let l = open(&base).unwrap();
    let trace = with_ext(&base, "trace");
    let e = check_output(&trace, &l.inputs).unwrap_err().to_string();
    assert!(e.contains("would overwrite the input"), "{e}");
    let sneaky = d.path().join(".").join("ex.clog");
    assert!(check_output(&sneaky, &l.inputs).is_err());
    let other = d.path().join("out.html");
    assert_eq!(check_output(&other, &l.inputs).unwrap(), None);
    fs::write(&other, "x").unwrap();
    assert!(check_output(&other, &l.inputs).unwrap().unwrap().contains("replacing"));
    assert!(check_output(d.path(), &l.inputs).is_err());
}

#[test]
fn an_empty_file_is_called_empty() {
    let d = tempfile::tempdir().unwrap();
    let empty = d.path().join("empty.trace");
    fs::write(&empty, b"").unwrap();
    let e = open(&empty).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: the file is empty", empty.display())), "{e}");
}

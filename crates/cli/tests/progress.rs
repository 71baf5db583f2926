//! Progress on stderr: drawn in a terminal, absent when stderr is a pipe
//! and with `--quiet`. The terminal is a real pseudo-terminal, made by
//! util-linux's `script` (Debian's essential `bsdutils`).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

/// Writes a 300-second example session (~7 MB trace) into `dir`.
fn example(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("s");
    common::ok_stdout(&["example", "-o", out.to_str().unwrap(), "--duration-s", "300"]);
    out.join("browser")
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Columns of the pseudo-terminal: as narrow as terminals get.
const COLUMNS: usize = 80;

/// Runs tracekit with `args` in an 80-column pseudo-terminal; returns
/// everything the terminal received (stdout and stderr both).
fn in_terminal(args: &[&str]) -> String {
    let command = std::iter::once(env!("CARGO_BIN_EXE_tracekit"))
        .chain(args.iter().copied())
        .map(quote)
        .collect::<Vec<_>>()
        .join(" ");
    let line = format!("stty cols {COLUMNS} rows 24; exec {command}");
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env("TRACEKIT_PROGRESS_DELAY_MS", "0")
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .output()
        .expect("util-linux `script` (package bsdutils) runs");
    assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What the terminal shows line by line: escape sequences removed, split
/// at carriage returns and newlines.
fn visible_lines(screen: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut chars = screen.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters, then one final byte in @..~.
            for f in chars.by_ref() {
                if ('@'..='~').contains(&f) {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain.split(['\r', '\n']).map(str::to_owned).collect()
}

#[test]
fn reading_and_writing_show_progress_in_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let base = example(dir.path());
    let trace = base.with_extension("trace");
    let size = std::fs::metadata(&trace).unwrap().len();
    let size_mib = format!("{:.2} MiB", size as f64 / 1024.0 / 1024.0);
    let out = dir.path().join("s.pftrace");

    // In a terminal: a byte bar for the input, sized from the file, and
    // the bytes of the output as they are written.
    let screen = in_terminal(&[
        "convert",
        base.to_str().unwrap(),
        "--to",
        "perfetto",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(screen.contains("reading browser.trace "), "{screen}");
    assert!(screen.contains("] "), "a bar is drawn: {screen}");
    assert!(
        screen.contains(&format!("/{size_mib}")),
        "the bar's total is the file size: {screen}"
    );
    assert!(screen.contains("writing s.pftrace "), "{screen}");
    assert!(screen.contains(" written"), "{screen}");
    // The bar is removed when done: the last line is the note, not the bar.
    assert!(screen.contains("\x1b[2K"), "lines are cleared: {screen:?}");
    assert!(
        screen
            .trim_end()
            .ends_with(&format!("tracekit: note: wrote {}", out.display())),
        "{screen:?}"
    );

    // No progress line is wider than the terminal (a wider one wraps onto
    // a second row on every redraw).
    for l in visible_lines(&screen).iter().filter(|l| !l.starts_with("tracekit: ")) {
        assert!(l.chars().count() <= COLUMNS, "{} columns: {l:?}", l.chars().count());
    }

    // --quiet: nothing but the result (no bar, no note).
    let quiet = in_terminal(&[
        "--quiet",
        "convert",
        base.to_str().unwrap(),
        "--to",
        "perfetto",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!quiet.contains("reading") && !quiet.contains("note:"), "{quiet}");
    assert!(quiet.trim().is_empty(), "{quiet:?}");

    // Piped: the same command prints only its note.
    let piped = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(["convert", base.to_str().unwrap(), "--to", "perfetto", "-o"])
        .arg(&out)
        .env("TRACEKIT_PROGRESS_DELAY_MS", "0")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(piped.status.success());
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(!stderr.contains("reading") && !stderr.contains('\x1b'), "{stderr}");
    assert!(stderr.contains("tracekit: note: replacing"), "{stderr}");
}

#[test]
fn analysis_steps_show_a_spinner_and_leave_the_output_clean() {
    let dir = tempfile::tempdir().unwrap();
    let base = example(dir.path());
    let screen = in_terminal(&["profile", base.to_str().unwrap(), "--limit", "3"]);
    assert!(screen.contains("computing the profile"), "{screen}");
    // The table follows, whole, once the spinner's line is cleared.
    let header = screen.lines().find(|l| l.contains("Profile (")).unwrap_or_default();
    let after_clear = header.rsplit("\x1b[2K").next().unwrap_or_default();
    assert!(after_clear.starts_with("Profile ("), "{screen:?}");
    let piped = common::tracekit(&["profile", base.to_str().unwrap(), "--limit", "3"]);
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("computing"));
}

//! The human-readable object-interaction trace of seed 004 (Sony Ericsson's
//! ECMX tracing facility): one entry per line recording object creation and
//! destruction, operation bodies entered and left, and client-side proxy and
//! server-side stub operations with both process ids.
//!
//! # Grammar
//!
//! tracekit writes, and reads, lines matching this regular expression (Perl
//! syntax; fields are separated by one or more spaces or tabs):
//!
//! ```text
//! ^(?:([CD])[ \t]+(\d+)[ \t]+((?:0x)?[0-9A-Fa-f]+)[ \t]+(\d+)[ \t]+(\S+)
//!   |([EL])[ \t]+(\d+)[ \t]+((?:0x)?[0-9A-Fa-f]+)[ \t]+(\d+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)
//!   |([PAS])[ \t]+(\d+)[ \t]+(\d+)[ \t]+((?:0x)?[0-9A-Fa-f]+)[ \t]+(\d+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+))[ \t]*$
//! ```
//!
//! (written on three lines for reading; it is one alternation, see
//! [`LINE_REGEX`]). Fields in order: entry type, process id, the receiving
//! process id (`P`, `A`: the callee; `S`: the caller, `0` when unknown —
//! present only for these three types), the object id in hexadecimal, a
//! timestamp (nanoseconds on the trace's timeline; only its order matters),
//! the class name, and for all but `C`/`D` the interface and operation.
//! Empty lines and lines starting with `#` are ignored; a
//! `# anchor_unix_ns=N` comment gives the wall time of timestamp 0.
//!
//! Entry types: `C` created, `D` destroyed, `E` operation entered, `L` left
//! (also ends a proxy or stub call), `P` synchronous proxy entered, `A`
//! asynchronous proxy entered, `S` stub entered.
//!
//! ```
//! let text = "C 10 0x1f 5 Alarm\nE 10 0x1f 7 Alarm IAlarm Set\nL 10 0x1f 9 Alarm IAlarm Set\n";
//! let s = tracekit_objtrace::read_str(text, "demo").unwrap();
//! assert_eq!(s.objects.len(), 3);
//! assert_eq!(tracekit_objtrace::write_string(&s), format!("{}{text}", tracekit_objtrace::HEADER));
//! ```

use tracekit_model::{Clocks, ObjectEvent, ObjectEventKind, Process, RemoteCall, RemoteCallKind, Session};

/// The grammar of one entry line as a single regular expression.
pub const LINE_REGEX: &str = r"^(?:([CD])[ \t]+(\d+)[ \t]+((?:0x)?[0-9A-Fa-f]+)[ \t]+(\d+)[ \t]+(\S+)|([EL])[ \t]+(\d+)[ \t]+((?:0x)?[0-9A-Fa-f]+)[ \t]+(\d+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)|([PAS])[ \t]+(\d+)[ \t]+(\d+)[ \t]+((?:0x)?[0-9A-Fa-f]+)[ \t]+(\d+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+))[ \t]*$";

/// First line tracekit writes.
pub const HEADER: &str =
    "# tracekit object trace v1: type pid [remote-pid] object-id timestamp-ns class [interface operation]\n";

/// A line that does not follow the grammar.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{source_name}: {}{what}", line_prefix(*.line))]
pub struct ParseError {
    /// File (or other source) name.
    pub source_name: String,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// "line N: " for a line error, nothing for a whole-file error (line 0).
fn line_prefix(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}: ")
    }
}

/// One parsed entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// `C`, `D`, `E` or `L`.
    Object(ObjectEvent),
    /// `P`, `A` or `S`.
    Remote(RemoteCall),
}

fn parse_line(line: &str) -> Result<Entry, String> {
    let f: Vec<&str> = line.split([' ', '\t']).filter(|s| !s.is_empty()).collect();
    let ty = f.first().copied().unwrap_or("");
    let want = match ty {
        "C" | "D" => 5,
        "E" | "L" => 7,
        "P" | "A" | "S" => 8,
        _ => return Err(format!("unknown entry type `{ty}` (expected one of C D E L P A S)")),
    };
    if f.len() != want {
        return Err(format!("entry `{ty}` needs {want} fields, found {}", f.len()));
    }
    let num = |i: usize, what: &str| -> Result<u64, String> {
        if f[i].bytes().all(|b| b.is_ascii_digit()) {
            f[i].parse().map_err(|_| format!("{what} `{}` is out of range", f[i]))
        } else {
            Err(format!("{what} `{}` is not a decimal number", f[i]))
        }
    };
    let pid = u32::try_from(num(1, "process id")?).map_err(|_| "process id out of range".to_string())?;
    let at = if want == 8 { 3 } else { 2 };
    let hex = f[at].strip_prefix("0x").unwrap_or(f[at]);
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("object id `{}` is not hexadecimal", f[at]));
    }
    let object_id = u64::from_str_radix(hex, 16).map_err(|_| format!("object id `{}` is out of range", f[at]))?;
    let ts_ns = num(at + 1, "timestamp")?;
    let class = f[at + 2].to_owned();
    if want == 8 {
        let remote = num(2, "remote process id")?;
        let remote_pid = u32::try_from(remote).map_err(|_| "remote process id out of range".to_string())?;
        let kind = match ty {
            "P" => RemoteCallKind::ProxySync,
            "A" => RemoteCallKind::ProxyAsync,
            _ => RemoteCallKind::Stub,
        };
        return Ok(Entry::Remote(RemoteCall {
            ts_ns,
            pid,
            remote_pid,
            thread: None,
            kind,
            object_id,
            class,
            interface: f[6].to_owned(),
            operation: f[7].to_owned(),
        }));
    }
    let kind = match ty {
        "C" => ObjectEventKind::Created,
        "D" => ObjectEventKind::Destroyed,
        "E" => ObjectEventKind::OperationEntered,
        _ => ObjectEventKind::OperationLeft,
    };
    Ok(Entry::Object(ObjectEvent {
        ts_ns,
        pid,
        thread: None,
        kind,
        object_id,
        class,
        interface: f.get(5).map(|s| s.to_string()),
        operation: f.get(6).map(|s| s.to_string()),
    }))
}

/// True when `head` (the first bytes of a file) looks like an object trace:
/// tracekit's header, or a first entry line that follows the grammar.
pub fn sniff(head: &[u8]) -> bool {
    if head.starts_with(b"# tracekit object trace") {
        return true;
    }
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    // The last line of a cut-off head may be incomplete: judge complete ones.
    let complete = if text.ends_with('\n') {
        usize::MAX
    } else {
        text.lines().count().saturating_sub(1)
    };
    match lines.next() {
        Some(first) if complete > 0 => parse_line(first).is_ok(),
        _ => false,
    }
}

/// Parses an object trace into a session (objects, remote calls, processes).
pub fn read_str(text: &str, source_name: &str) -> Result<Session, ParseError> {
    let mut s = Session::new(source_name, Clocks::WALL);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            if let Some(v) = c.trim().strip_prefix("anchor_unix_ns=") {
                s.anchor_unix_ns = v.trim().parse().ok();
            }
            continue;
        }
        let e = parse_line(line).map_err(|what| ParseError {
            source_name: source_name.to_owned(),
            line: i + 1,
            what,
        })?;
        let pid = match &e {
            Entry::Object(o) => o.pid,
            Entry::Remote(r) => r.pid,
        };
        if !s.processes.iter().any(|p| p.pid == pid) {
            s.processes.push(Process {
                pid,
                name: format!("process {pid}"),
            });
        }
        // The format has no threads: each process's entries form one thread
        // (tid = pid), so listings and diagrams nest them per process.
        let thread = Some(s.thread_by_tid(pid, Some(pid)));
        match e {
            Entry::Object(o) => s.objects.push(ObjectEvent { thread, ..o }),
            Entry::Remote(r) => s.remote_calls.push(RemoteCall { thread, ..r }),
        }
    }
    Ok(s)
}

/// Reads an object trace file (a regular file only: FIFOs and devices are
/// refused before they are opened; invalid UTF-8 names its byte offset).
pub fn read_file(path: &std::path::Path) -> Result<Session, ParseError> {
    let name = path.display().to_string();
    let text = tracekit_safeio::read_bytes(path).map_err(|e| ParseError {
        source_name: name.clone(),
        line: 0,
        what: e.message,
    })?;
    let text = String::from_utf8(text).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        ParseError {
            source_name: name.clone(),
            line,
            what: format!(
                "not UTF-8 text: invalid byte at byte offset {}",
                e.utf8_error().valid_up_to()
            ),
        }
    })?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or(name.clone());
    let mut s = read_str(&text, &name)?;
    s.name = stem;
    Ok(s)
}

/// Names may not contain blanks: blanks become `_`, empty names `-`.
fn field(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.replace([' ', '\t', '\n', '\r'], "_")
    }
}

/// Formats one entry as a line (without the newline).
pub fn format_entry(e: &Entry) -> String {
    match e {
        Entry::Object(o) => {
            let ty = match o.kind {
                ObjectEventKind::Created => 'C',
                ObjectEventKind::Destroyed => 'D',
                ObjectEventKind::OperationEntered => 'E',
                ObjectEventKind::OperationLeft => 'L',
            };
            match o.kind {
                ObjectEventKind::Created | ObjectEventKind::Destroyed => {
                    format!("{ty} {} 0x{:x} {} {}", o.pid, o.object_id, o.ts_ns, field(&o.class))
                }
                _ => format!(
                    "{ty} {} 0x{:x} {} {} {} {}",
                    o.pid,
                    o.object_id,
                    o.ts_ns,
                    field(&o.class),
                    field(o.interface.as_deref().unwrap_or("")),
                    field(o.operation.as_deref().unwrap_or(""))
                ),
            }
        }
        Entry::Remote(r) => {
            let ty = match r.kind {
                RemoteCallKind::ProxySync => 'P',
                RemoteCallKind::ProxyAsync => 'A',
                RemoteCallKind::Stub => 'S',
            };
            format!(
                "{ty} {} {} 0x{:x} {} {} {} {}",
                r.pid,
                r.remote_pid,
                r.object_id,
                r.ts_ns,
                field(&r.class),
                field(&r.interface),
                field(&r.operation)
            )
        }
    }
}

/// The entries of a session in time order (object events before remote
/// calls at equal times, each kind in its stored order).
pub fn entries(s: &Session) -> Vec<Entry> {
    let mut v: Vec<(u64, u8, usize, Entry)> = Vec::new();
    for (i, o) in s.objects.iter().enumerate() {
        v.push((o.ts_ns, 0, i, Entry::Object(o.clone())));
    }
    for (i, r) in s.remote_calls.iter().enumerate() {
        v.push((r.ts_ns, 1, i, Entry::Remote(r.clone())));
    }
    v.sort_by_key(|e| (e.0, e.1, e.2));
    v.into_iter().map(|e| e.3).collect()
}

/// Writes a session's object and remote-call events as an object trace.
pub fn write_string(s: &Session) -> String {
    let mut out = String::from(HEADER);
    if let Some(a) = s.anchor_unix_ns {
        out.push_str(&format!("# anchor_unix_ns={a}\n"));
    }
    for e in entries(s) {
        out.push_str(&format_entry(&e));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sniffs_entry_lines_only() {
        assert!(sniff(HEADER.as_bytes()));
        assert!(sniff(b"C 10 0x1f 5 Alarm\n"));
        assert!(sniff(b"# a comment\n\nP 1 2 0xa 5 Px IFace Op\n"));
        assert!(!sniff(b"*version\n3\n"));
        assert!(!sniff(b"C 10 zz 5 Alarm\n"));
        assert!(!sniff(b""));
    }

    #[test]
    fn reads_every_entry_type() {
        let t = "# c\nC 1 0xa 1 Foo\nE 1 a 2 Foo IFoo Run\nP 1 2 0xb 3 BarProxy IBar Get\nS 2 1 0xc 4 BarStub IBar Get\nL 2 0xc 5 BarStub IBar Get\nL 1 0xb 6 BarProxy IBar Get\nA 1 2 0xb 7 BarProxy IBar Post\nL 1 0xa 8 Foo IFoo Run\nD 1 0xa 9 Foo\n";
        let s = read_str(t, "t").unwrap();
        assert_eq!(s.objects.len(), 6);
        assert_eq!(s.remote_calls.len(), 3);
        assert_eq!(s.remote_calls[1].kind, RemoteCallKind::Stub);
        assert_eq!(s.remote_calls[1].remote_pid, 1);
        assert_eq!(s.processes.len(), 2);
        // Writing normalizes ids to 0x form and round-trips.
        let again = read_str(&write_string(&s), "t").unwrap();
        assert_eq!(again.objects, s.objects);
        assert_eq!(again.remote_calls, s.remote_calls);
        assert_eq!(s.threads.len(), 2);
        assert_eq!(s.objects[0].thread, Some(tracekit_model::ThreadId(0)));
    }

    #[test]
    fn errors_name_the_line() {
        let e = read_str("C 1 0xa 1 Foo\nE 1 0xa 2 Foo\n", "f.otr").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("f.otr: line 2:"), "{e}");
        assert!(read_str("X 1 2 3 4", "f").is_err());
        assert!(read_str("C 1 0xzz 1 Foo", "f").is_err());
        assert!(read_str("C 99999999999 0xa 1 Foo", "f").is_err());
    }

    #[test]
    fn files_that_are_not_regular_or_not_text_are_clear_errors() {
        let e = read_file(std::path::Path::new("/dev/zero")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero: not a regular file (a FIFO, socket or device); tracekit reads files"
        );
        let p = std::env::temp_dir().join(format!("tracekit-objtrace-bad-{}.otr", std::process::id()));
        std::fs::write(&p, b"C 1 0xa 1 Foo\nC 1 0xb 2 B\xe9r\n").unwrap();
        let e = read_file(&p).unwrap_err();
        std::fs::remove_file(&p).unwrap();
        assert_eq!(e.line, 2);
        assert!(
            e.to_string()
                .ends_with("line 2: not UTF-8 text: invalid byte at byte offset 25"),
            "{e}"
        );
    }

    #[test]
    fn regex_agrees_with_reader_on_corpus() {
        let re = regex::Regex::new(LINE_REGEX).unwrap();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            for line in text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
            {
                assert_eq!(re.is_match(line), parse_line(line).is_ok(), "disagree on `{line}`");
                n += 1;
            }
        }
        assert!(n > 10);
    }

    fn entry_strategy() -> impl Strategy<Value = Entry> {
        let name = "[A-Za-z_][A-Za-z0-9_:]{0,8}";
        (
            0u8..7,
            any::<u32>(),
            any::<u32>(),
            any::<u64>(),
            any::<u64>(),
            name,
            name,
            name,
        )
            .prop_map(|(k, pid, rp, id, ts, c, i, o)| {
                if k < 4 {
                    let kind = [
                        ObjectEventKind::Created,
                        ObjectEventKind::Destroyed,
                        ObjectEventKind::OperationEntered,
                        ObjectEventKind::OperationLeft,
                    ][k as usize];
                    let ops = k >= 2;
                    Entry::Object(ObjectEvent {
                        ts_ns: ts,
                        pid,
                        thread: None,
                        kind,
                        object_id: id,
                        class: c,
                        interface: ops.then_some(i),
                        operation: ops.then_some(o),
                    })
                } else {
                    let kind = [
                        RemoteCallKind::ProxySync,
                        RemoteCallKind::ProxyAsync,
                        RemoteCallKind::Stub,
                    ][k as usize - 4];
                    Entry::Remote(RemoteCall {
                        ts_ns: ts,
                        pid,
                        remote_pid: rp,
                        thread: None,
                        kind,
                        object_id: id,
                        class: c,
                        interface: i,
                        operation: o,
                    })
                }
            })
    }

    proptest! {
        #[test]
        fn lines_round_trip_and_match_the_regex(e in entry_strategy()) {
            let line = format_entry(&e);
            prop_assert!(regex::Regex::new(LINE_REGEX).unwrap().is_match(&line));
            prop_assert_eq!(parse_line(&line).unwrap(), e);
        }

        #[test]
        fn mutated_lines_never_panic(e in entry_strategy(), pos in 0usize..80, b in any::<u8>()) {
            let mut bytes = format_entry(&e).into_bytes();
            let p = pos % bytes.len();
            bytes[p] = b;
            if let Ok(s) = String::from_utf8(bytes) {
                let _ = read_str(&s, "m");
            }
        }
    }
}

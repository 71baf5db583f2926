//! Which format a path holds, decided from its bytes.

use crate::{base_of, check_regular, with_ext, Error};
use std::io::Read;
use std::path::{Path, PathBuf};

/// How many leading bytes the format sniffers see.
pub const HEAD_LEN: usize = 64 * 1024;

/// The formats [`crate::open`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// An Android method trace (`Debug.startMethodTracing`), any version.
    AndroidTrace,
    /// Seed 000's context log; opens the trace beside it.
    ContextLog,
    /// A directory written by `tracekit record` or the native runtime.
    Recording,
    /// Seed 004's object trace.
    ObjectTrace,
    /// atrace/ftrace text (plain or `TRACE:` + zlib) or systrace HTML.
    Systrace,
    /// A Perfetto trace (protobuf `Trace` of `TracePacket`s).
    Perfetto,
    /// Chrome JSON trace events (chrome://tracing, DevTools, Catapult).
    ChromeJson,
    /// A power-measurement file: Trepn CSV, BattOr text, Battery
    /// Historian's power-monitor file or batterystats' history.
    PowerFile,
}

impl Format {
    /// Every format, in the order the sniffers are asked.
    pub const ALL: &'static [Format] = &[
        Format::AndroidTrace,
        Format::ContextLog,
        Format::Recording,
        Format::ObjectTrace,
        Format::Systrace,
        Format::Perfetto,
        Format::ChromeJson,
        Format::PowerFile,
    ];

    /// Short stable name (used in `info` and JSON).
    pub fn name(self) -> &'static str {
        match self {
            Format::AndroidTrace => "android-trace",
            Format::ContextLog => "context-log",
            Format::Recording => "recording",
            Format::ObjectTrace => "object-trace",
            Format::Systrace => "systrace",
            Format::Perfetto => "perfetto",
            Format::ChromeJson => "chrome-json",
            Format::PowerFile => "power-file",
        }
    }

    /// One line for users.
    pub fn describe(self) -> &'static str {
        match self {
            Format::AndroidTrace => "Android method trace (.trace, versions 1-5, streaming or not)",
            Format::ContextLog => "context log (.clog), read with the trace beside it",
            Format::Recording => "native recording directory (tracekit record)",
            Format::ObjectTrace => "object trace (.otr)",
            Format::Systrace => "atrace/ftrace text, compressed atrace or systrace HTML",
            Format::Perfetto => "Perfetto trace (protobuf)",
            Format::ChromeJson => "Chrome JSON trace events",
            Format::PowerFile => {
                "power measurements (Trepn CSV, BattOr, Battery Historian power monitor, batterystats)"
            }
        }
    }

    /// The extensions this format's files usually have (tie-breakers only).
    fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::AndroidTrace => &["trace"],
            Format::ContextLog => &["clog"],
            Format::Recording => &[],
            Format::ObjectTrace => &["otr"],
            Format::Systrace => &["html", "txt", "atrace", "ctrace"],
            Format::Perfetto => &["perfetto-trace", "pftrace", "pb"],
            Format::ChromeJson => &["json"],
            Format::PowerFile => &["csv", "txt"],
        }
    }

    fn sniff(self, head: &[u8]) -> bool {
        match self {
            Format::AndroidTrace => tracekit_dmtrace::sniff(head),
            Format::ContextLog => tracekit_clog::sniff(head),
            Format::Recording => false,
            Format::ObjectTrace => tracekit_objtrace::sniff(head),
            Format::Systrace => tracekit_ftrace::sniff(head),
            Format::Perfetto => tracekit_perfetto::sniff(head),
            Format::ChromeJson => tracekit_chrome::sniff(head),
            Format::PowerFile => tracekit_power::sniff(head),
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A path and the format found in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    /// The file or directory to read (`NAME` resolved to `NAME.trace`).
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
}

/// Decides what `path` holds. `NAME` with no such file means `NAME.trace`.
pub fn detect(path: &Path) -> Result<Detected, Error> {
    if path.is_dir() {
        if tracekit_recording::is_recording_dir(path) {
            return Ok(Detected {
                path: path.to_owned(),
                format: Format::Recording,
            });
        }
        if path.join(tracekit_emu_format::RUN_FILE).is_file() {
            return Err(Error::new(
                path,
                "an emulator run directory: read it with `tracekit emu report` (it holds instruction counts, not a trace)",
            ));
        }
        return Err(Error::new(
            path,
            "a directory that is not a recording (no recording.json and no thread-*.tkt files)",
        ));
    }
    let path = if path.exists() {
        path.to_owned()
    } else {
        let trace = with_ext(&base_of(path), "trace");
        if trace.exists() {
            trace
        } else {
            return Err(Error::new(
                path,
                format!(
                    "no such file (nor {}); tracekit reads: {}",
                    trace.display(),
                    Format::ALL.iter().map(|f| f.describe()).collect::<Vec<_>>().join("; ")
                ),
            ));
        }
    };
    check_regular(&path)?;
    let head = read_head(&path)?;
    let matches: Vec<Format> = Format::ALL.iter().copied().filter(|f| f.sniff(&head)).collect();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let format = match matches.as_slice() {
        [] => {
            return Err(Error::new(
                &path,
                format!(
                    "not a format tracekit reads (the first bytes fit none of: {})",
                    Format::ALL.iter().map(|f| f.describe()).collect::<Vec<_>>().join("; ")
                ),
            ))
        }
        [one] => *one,
        several => several
            .iter()
            .copied()
            .find(|f| f.extensions().contains(&ext))
            .unwrap_or(several[0]),
    };
    Ok(Detected { path, format })
}

fn read_head(path: &Path) -> Result<Vec<u8>, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::new(path, e.to_string()))?;
    let mut head = Vec::with_capacity(HEAD_LEN);
    file.take(HEAD_LEN as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::new(path, e.to_string()))?;
    Ok(head)
}

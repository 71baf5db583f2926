//! Opens and saves sessions by name, the way Traceview does: `NAME` means
//! `NAME.trace` (required) plus `NAME.clog` (optional context log).
//!
//! The two files carry their own start times (µs since the epoch, from the
//! same `gettimeofday` clock), so the context tracks are shifted onto the
//! trace's timeline: a record logged before tracing started gets a negative
//! time. Without a `.clog`, the session simply has no context tracks and
//! method analysis still works.
//!
//! ```no_run
//! let loaded = tracekit_io::open(std::path::Path::new("session")).unwrap();
//! println!("{} threads, context: {:?}", loaded.session.threads.len(), loaded.clog_path);
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use tracekit_clog::ContextLog;
use tracekit_model::Session;

/// Why a session could not be opened or saved. The message names the file
/// and, for malformed content, the byte offset (and line in text parts).
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct Error {
    /// The file concerned.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl Error {
    fn new(path: &Path, message: impl Into<String>) -> Error {
        Error {
            path: path.to_owned(),
            message: message.into(),
        }
    }
}

/// A session and where it came from.
#[derive(Debug)]
pub struct Loaded {
    /// The session, context tracks lined up on the trace's timeline.
    pub session: Session,
    /// The method trace read.
    pub trace_path: PathBuf,
    /// The context log read, if there was one.
    pub clog_path: Option<PathBuf>,
    /// Things worth telling the user (a truncated context log, say).
    pub notes: Vec<String>,
}

/// The base name of an input: `x.trace` and `x.clog` both mean `x`.
pub fn base_of(name: &Path) -> PathBuf {
    match name.extension().and_then(|e| e.to_str()) {
        Some("trace") | Some("clog") => name.with_extension(""),
        _ => name.to_owned(),
    }
}

fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Opens `NAME.trace` and, when present, `NAME.clog`.
pub fn open(name: &Path) -> Result<Loaded, Error> {
    let base = base_of(name);
    let mut trace_path = with_ext(&base, "trace");
    if !trace_path.is_file() && name.is_file() && name.extension().is_none_or(|e| e != "clog") {
        trace_path = name.to_owned();
    }
    if !trace_path.is_file() {
        return Err(Error::new(
            &trace_path,
            "no method trace here (tracekit NAME reads NAME.trace and, if present, NAME.clog)",
        ));
    }
    let mut session = tracekit_dmtrace::read_path(&trace_path).map_err(|e| Error::new(&trace_path, e.to_string()))?;
    if session.name.is_empty() || session.name == "trace" {
        session.name = base
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    let mut notes = Vec::new();
    let clog_path = with_ext(&base, "clog");
    let clog_path = if clog_path.is_file() {
        let bytes = fs::read(&clog_path).map_err(|e| Error::new(&clog_path, e.to_string()))?;
        let outcome = tracekit_clog::read(&bytes).map_err(|e| Error::new(&clog_path, e.to_string()))?;
        if let Some(at) = outcome.truncated_at {
            notes.push(format!(
                "{}: the last record was cut off at byte {at}; every record before it was kept",
                clog_path.display()
            ));
        }
        attach_context(&mut session, &outcome.log);
        Some(clog_path)
    } else {
        None
    };
    Ok(Loaded {
        session,
        trace_path,
        clog_path,
        notes,
    })
}

/// Adds a context log's tracks to a session, shifted onto its timeline.
pub fn attach_context(session: &mut Session, log: &ContextLog) {
    let clog_ns = log.start_unix_us.saturating_mul(1000);
    let shift = match session.anchor_unix_ns {
        Some(anchor) => clog_ns - anchor,
        None => {
            session.anchor_unix_ns = Some(clog_ns);
            0
        }
    };
    for mut t in log.to_tracks() {
        t.shift(shift);
        session.context.push(t);
    }
}

/// Writes `NAME.trace` (version 3) and, when the session has context
/// tracks, `NAME.clog` (binary). Returns the paths written.
pub fn save(session: &Session, base: &Path) -> Result<Vec<PathBuf>, Error> {
    let trace_path = with_ext(base, "trace");
    tracekit_dmtrace::write_path(session, &trace_path).map_err(|e| Error::new(&trace_path, e.to_string()))?;
    let mut out = vec![trace_path];
    if !session.context.is_empty() {
        let clog_path = with_ext(base, "clog");
        let anchor_us = session.anchor_unix_ns.unwrap_or(0).div_euclid(1000);
        let start_us = anchor_us
            + session
                .context
                .iter()
                .filter_map(|t| t.times.first())
                .min()
                .copied()
                .unwrap_or(0)
                .min(0)
                .div_euclid(1000);
        let shift = (anchor_us - start_us) * 1000;
        let tracks: Vec<_> = session
            .context
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.shift(shift);
                t
            })
            .collect();
        let log = ContextLog::from_tracks(start_us, &tracks);
        let mut bytes = Vec::new();
        tracekit_clog::write_binary(&log, &mut bytes).map_err(|e| Error::new(&clog_path, e.to_string()))?;
        fs::write(&clog_path, bytes).map_err(|e| Error::new(&clog_path, e.to_string()))?;
        out.push(clog_path);
    }
    Ok(out)
}

//! Android method traces with their context logs: `NAME.trace` plus, when
//! present, `NAME.clog`, lined up on the wall clock.
//!
//! The two files carry their own start times (µs since the epoch, from the
//! same `gettimeofday` clock), so the context tracks are shifted onto the
//! trace's timeline: a record logged before tracing started gets a negative
//! time. Without a `.clog`, the session simply has no context tracks and
//! method analysis still works.

use crate::{with_ext, Error};
use std::fs;
use std::path::{Path, PathBuf};
use tracekit_clog::ContextLog;
use tracekit_model::Session;

/// Reads the trace at `trace_path` and the context log beside it
/// (`base.clog`), if there is one. Returns the session, the context log's
/// path when one was read, and notes for the user.
pub(crate) fn open(trace_path: &Path, base: &Path) -> Result<(Session, Vec<PathBuf>, Vec<String>), Error> {
    let mut session = tracekit_dmtrace::read_path(trace_path).map_err(|e| Error::new(trace_path, e.to_string()))?;
    if session.name.is_empty() || session.name == "trace" {
        session.name = base
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    let mut notes = Vec::new();
    let mut read = vec![trace_path.to_owned()];
    let clog_path = with_ext(base, "clog");
    if clog_path.exists() {
        crate::check_regular(&clog_path)?;
        let bytes = fs::read(&clog_path).map_err(|e| Error::new(&clog_path, e.to_string()))?;
        let outcome = tracekit_clog::read(&bytes).map_err(|e| Error::new(&clog_path, e.to_string()))?;
        if let Some(at) = outcome.truncated_at {
            notes.push(format!(
                "{}: the last record was cut off at byte {at}; every record before it was kept",
                clog_path.display()
            ));
        }
        attach_context(&mut session, &outcome.log);
        read.push(clog_path);
    }
    Ok((session, read, notes))
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

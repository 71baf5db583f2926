//! speedscope's file format (`https://www.speedscope.app/file-format-schema.json`):
//! shared frames, then one evented profile per thread with calls.

use crate::walk::walk;
use crate::{frame_names, json, thread_title, Error};
use std::io::{BufWriter, Write};
use tracekit_model::Session;

/// The schema URL speedscope recognises its own files by.
pub const SPEEDSCOPE_SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

/// Writes `session` as a speedscope file.
///
/// - `shared.frames` has one frame per method, in method-id order (frame
///   index = method id): `name` from [`frame_names`], `file` and `line`
///   when the model knows them.
/// - One `evented` profile per thread that has calls (threads without calls
///   are left out), named `label (tid N)`, `unit` `nanoseconds`: every
///   call's enter is an `O` event and its exit (or unwind) a `C` event at
///   its exact timeline time in ns since the session's anchor (integers, so
///   exact up to 2⁵³ ns, 104 days). `startValue` and `endValue` are the
///   first and last call times over all threads, so every thread shares
///   one axis.
/// - `activeProfileIndex` opens the thread with the most calls.
///
/// A session where no thread has calls is [`Error::NoCalls`]: speedscope
/// cannot open a file without profiles.
pub fn write_speedscope(session: &Session, out: &mut impl Write) -> Result<(), Error> {
    let threads: Vec<usize> = session
        .thread_calls()
        .filter(|(_, _, c)| !c.is_empty())
        .map(|(id, _, _)| id.0 as usize)
        .collect();
    if threads.is_empty() {
        return Err(Error::NoCalls);
    }
    let (mut start, mut end) = (u64::MAX, 0u64);
    for (_, _, c) in session.thread_calls() {
        if let (Some(&a), Some(&b)) = (c.times().first(), c.times().iter().max()) {
            start = start.min(a);
            end = end.max(b);
        }
    }
    let active = threads
        .iter()
        .enumerate()
        .max_by_key(|&(k, &t)| (session.calls(tracekit_model::ThreadId(t as u32)).len(), usize::MAX - k))
        .map_or(0, |(k, _)| k);

    let mut w = BufWriter::with_capacity(1 << 16, out);
    write!(w, "{{\"$schema\":\"{SPEEDSCOPE_SCHEMA}\",\"exporter\":")?;
    json::string(&mut w, &format!("tracekit@{}", env!("CARGO_PKG_VERSION")))?;
    w.write_all(b",\"name\":")?;
    json::string(&mut w, &session.name)?;
    write!(w, ",\"activeProfileIndex\":{active},\"shared\":{{\"frames\":[")?;
    for (i, (name, (_, m))) in frame_names(&session.methods)
        .iter()
        .zip(session.methods.iter())
        .enumerate()
    {
        if i > 0 {
            w.write_all(b",")?;
        }
        w.write_all(b"{\"name\":")?;
        json::string(&mut w, name)?;
        if let Some(file) = &m.source_file {
            w.write_all(b",\"file\":")?;
            json::string(&mut w, file)?;
        }
        if let Some(line) = m.line {
            write!(w, ",\"line\":{line}")?;
        }
        w.write_all(b"}")?;
    }
    w.write_all(b"]},\"profiles\":[")?;
    for (k, &t) in threads.iter().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        w.write_all(b"{\"type\":\"evented\",\"name\":")?;
        json::string(&mut w, &thread_title(session, t))?;
        write!(
            w,
            ",\"unit\":\"nanoseconds\",\"startValue\":{start},\"endValue\":{end},\"events\":["
        )?;
        let calls = session.calls(tracekit_model::ThreadId(t as u32));
        let mut first = true;
        let mut result = Ok(());
        walk(calls, session.methods.len(), |s| {
            if result.is_err() {
                return;
            }
            result = write_event(&mut w, first, s.open, s.method.0, s.ts);
            first = false;
        });
        result?;
        w.write_all(b"]}")?;
    }
    w.write_all(b"]}\n")?;
    w.flush()?;
    Ok(())
}

#[inline]
fn write_event(w: &mut impl Write, first: bool, open: bool, frame: u32, at: u64) -> std::io::Result<()> {
    let head: &[u8] = match (first, open) {
        (true, true) => b"{\"type\":\"O\",\"frame\":",
        (true, false) => b"{\"type\":\"C\",\"frame\":",
        (false, true) => b",{\"type\":\"O\",\"frame\":",
        (false, false) => b",{\"type\":\"C\",\"frame\":",
    };
    w.write_all(head)?;
    json::uint(w, frame as u64)?;
    w.write_all(b",\"at\":")?;
    json::uint(w, at)?;
    w.write_all(b"}")
}

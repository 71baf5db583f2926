//! A session as Chrome JSON, in the object form, one event per line:
//!
//! - `M` `process_name` for every named process, `thread_name` for every
//!   thread (also unnamed ones, so each thread reappears in order);
//! - per thread, each call as a `B` and an `E` event — `B`/`E` rather than
//!   `X` because the model already holds enters and exits: they stream out
//!   in one pass with no pairing, and both ends keep their exact times. The
//!   `B` carries the name (the method's display name, with class and
//!   signature: `com.example.App.run ()V`) and, when the method has a
//!   module, `cat`; an exit by exception is an `E` with `args.unwind`;
//! - `tts` (thread time) on every call event when the session has the
//!   thread-CPU clock;
//! - `i` (thread scope) for markers;
//! - `C` for counter tracks and numeric context tracks, one series named
//!   `value`, so reading back gives tracks of the same names;
//! - `b`/`e` for async slices;
//! - `metadata` with `clock-domain`, the session's properties and
//!   tracekit's own `tracekit` object (session name, wall-clock anchor).
//!
//! Times are µs with three decimals (the ns), on the session's source clock
//! when it has one (`ts` = origin + timeline), else from 0, moved up if a
//! context track starts before that so no `ts` is negative. A thread whose
//! process is unknown gets the single process's pid, or [`DEFAULT_PID`].
//! Scheduling slices, object events and remote calls have no Chrome
//! equivalent and are not written; string context tracks neither.

use crate::error::Error;
use std::io::Write;
use tracekit_model::{CallKind, ContextSamples, Session};

/// pid written for threads whose process is unknown, when the session does
/// not have exactly one process.
pub const DEFAULT_PID: u32 = 1;

/// Bytes gathered before they are handed to the output.
const FLUSH_AT: usize = 1 << 20;

struct Out<'a, W: Write> {
    buf: Vec<u8>,
    out: &'a mut W,
    first: bool,
}

impl<W: Write> Out<'_, W> {
    /// Starts an event line (with the separator before all but the first).
    fn line(&mut self) {
        if self.first {
            self.first = false;
            self.buf.push(b'\n');
        } else {
            self.buf.extend_from_slice(b",\n");
        }
    }

    fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    fn flush_if_full(&mut self) -> Result<(), Error> {
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

/// Writes a session as Chrome JSON (object form with "traceEvents").
pub fn write(session: &Session, out: &mut impl Write) -> Result<(), Error> {
    let mut w = Out {
        buf: Vec::with_capacity(FLUSH_AT + 4096),
        out,
        first: true,
    };
    let default_pid = match session.processes.as_slice() {
        [only] => only.pid,
        _ => DEFAULT_PID,
    };
    let base = base_ns(session);
    w.raw(b"{\"traceEvents\":[");
    for p in session.processes.iter().filter(|p| !p.name.is_empty()) {
        w.line();
        w.raw(b"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
        push_u64(&mut w.buf, u64::from(p.pid));
        w.raw(b",\"tid\":0,\"args\":{\"name\":");
        push_str(&mut w.buf, &p.name);
        w.raw(b"}}");
    }
    for t in &session.threads {
        w.line();
        w.raw(b"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
        push_u64(&mut w.buf, u64::from(t.pid.unwrap_or(default_pid)));
        w.raw(b",\"tid\":");
        push_u64(&mut w.buf, u64::from(t.tid));
        w.raw(b",\"args\":{\"name\":");
        push_str(&mut w.buf, &t.name);
        w.raw(b"}}");
    }
    write_calls(session, &mut w, default_pid, base)?;
    for m in &session.markers {
        let t = session.thread(m.thread);
        w.line();
        w.raw(b"{\"ph\":\"i\",\"s\":\"t\",\"pid\":");
        push_u64(&mut w.buf, u64::from(t.pid.unwrap_or(default_pid)));
        w.raw(b",\"tid\":");
        push_u64(&mut w.buf, u64::from(t.tid));
        w.raw(b",\"ts\":");
        push_micros(&mut w.buf, base.saturating_add(signed(m.ts_ns)));
        w.raw(b",\"name\":");
        push_str(&mut w.buf, &m.name);
        w.raw(b"}");
        w.flush_if_full()?;
    }
    for c in &session.counters {
        let pid = c.pid.unwrap_or(default_pid);
        for (&t, &v) in c.times.iter().zip(&c.values) {
            counter(&mut w, pid, &c.name, base.saturating_add(t), v)?;
        }
    }
    for track in &session.context {
        if matches!(track.samples, ContextSamples::String(_)) {
            continue;
        }
        for (i, &t) in track.times.iter().enumerate() {
            if let Some(v) = track.samples.get_f64(i) {
                counter(&mut w, default_pid, &track.label, base.saturating_add(t), v)?;
            }
        }
    }
    for a in &session.async_slices {
        let (pid, tid) = match a.thread {
            Some(id) => {
                let t = session.thread(id);
                (t.pid.or(a.pid).unwrap_or(default_pid), t.tid)
            }
            None => (a.pid.unwrap_or(default_pid), 0),
        };
        let ends: &[(u8, i64)] = if a.open {
            &[(b'b', signed(a.ts_ns))]
        } else {
            &[
                (b'b', signed(a.ts_ns)),
                (b'e', signed(a.ts_ns.saturating_add(a.dur_ns))),
            ]
        };
        for &(ph, t) in ends {
            w.line();
            w.raw(b"{\"ph\":\"");
            w.buf.push(ph);
            w.raw(b"\",\"cat\":");
            push_str(&mut w.buf, a.category.as_deref().unwrap_or(""));
            w.raw(b",\"id\":\"0x");
            w.raw(format!("{:x}", a.cookie).as_bytes());
            w.raw(b"\",\"pid\":");
            push_u64(&mut w.buf, u64::from(pid));
            w.raw(b",\"tid\":");
            push_u64(&mut w.buf, u64::from(tid));
            w.raw(b",\"ts\":");
            push_micros(&mut w.buf, base.saturating_add(t));
            w.raw(b",\"name\":");
            push_str(&mut w.buf, &a.name);
            w.raw(b"}");
        }
        w.flush_if_full()?;
    }
    w.raw(b"\n],\n\"metadata\":");
    let meta = metadata(session, base);
    serde_json::to_writer(&mut w.buf, &meta).map_err(std::io::Error::from)?;
    w.raw(b"}\n");
    w.out.write_all(&w.buf)?;
    w.out.flush()?;
    Ok(())
}

/// The calls of every thread as `B`/`E` events.
fn write_calls<W: Write>(session: &Session, w: &mut Out<W>, default_pid: u32, base: i64) -> Result<(), Error> {
    // `,"name":"…"[,"cat":"…"]}` per method, escaped once.
    let mut tails: Vec<Option<Vec<u8>>> = vec![None; session.methods.len()];
    let with_cpu = session.clocks.thread_cpu;
    for (_, t, calls) in session.thread_calls() {
        let mut ids = Vec::new();
        ids.extend_from_slice(b"\"pid\":");
        push_u64(&mut ids, u64::from(t.pid.unwrap_or(default_pid)));
        ids.extend_from_slice(b",\"tid\":");
        push_u64(&mut ids, u64::from(t.tid));
        ids.extend_from_slice(b",\"ts\":");
        let (words, times, cpu) = calls.columns();
        let cpu = cpu.filter(|_| with_cpu);
        for (i, (&word, &ts)) in words.iter().zip(times).enumerate() {
            let kind = CallKind::from_bits(word).unwrap_or(CallKind::Exit);
            w.line();
            w.raw(if kind == CallKind::Enter {
                b"{\"ph\":\"B\","
            } else {
                b"{\"ph\":\"E\","
            });
            w.raw(&ids);
            push_micros(&mut w.buf, base.saturating_add(signed(ts)));
            if let Some(c) = cpu {
                w.raw(b",\"tts\":");
                push_micros(&mut w.buf, signed(c[i]));
            }
            match kind {
                CallKind::Enter => {
                    let m = (word >> 2) as usize;
                    let tail = match tails.get_mut(m) {
                        Some(slot) => slot.get_or_insert_with(|| method_tail(session, m)),
                        None => {
                            return Err(unwritable(format!(
                                "call of method {m}, which the session does not have"
                            )))
                        }
                    };
                    w.raw(tail);
                }
                CallKind::Exit => w.raw(b"}"),
                CallKind::Unwind => w.raw(b",\"args\":{\"unwind\":true}}"),
            }
            w.flush_if_full()?;
        }
    }
    Ok(())
}

/// A timeline time as a signed ns count (saturating: `ts` is signed).
fn signed(t: u64) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX)
}

fn unwritable(message: String) -> Error {
    Error::Write(std::io::Error::new(std::io::ErrorKind::InvalidData, message))
}

fn method_tail(session: &Session, m: usize) -> Vec<u8> {
    let method = session.methods.get(tracekit_model::MethodId(m as u32));
    let mut tail = b",\"name\":".to_vec();
    push_str(&mut tail, &method.display_name());
    if let Some(cat) = method.module.as_deref().filter(|c| !c.is_empty()) {
        tail.extend_from_slice(b",\"cat\":");
        push_str(&mut tail, cat);
    }
    tail.push(b'}');
    tail
}

fn counter<W: Write>(w: &mut Out<W>, pid: u32, name: &str, t: i64, v: f64) -> Result<(), Error> {
    if !v.is_finite() {
        return Ok(()); // JSON has no NaN or infinity
    }
    w.line();
    w.raw(b"{\"ph\":\"C\",\"pid\":");
    push_u64(&mut w.buf, u64::from(pid));
    w.raw(b",\"tid\":0,\"ts\":");
    push_micros(&mut w.buf, t);
    w.raw(b",\"name\":");
    push_str(&mut w.buf, name);
    w.raw(b",\"args\":{\"value\":");
    serde_json::to_writer(&mut w.buf, &v).map_err(std::io::Error::from)?;
    w.raw(b"}}");
    w.flush_if_full()
}

/// The written `ts` (ns) of timeline 0: the source clock's origin, or 0,
/// raised so that no context or counter sample is before 0.
fn base_ns(session: &Session) -> i64 {
    let origin = session.source_clock.as_ref().map_or(0, |c| c.origin_ns);
    let earliest = session
        .context
        .iter()
        .filter_map(|t| t.times.first())
        .chain(session.counters.iter().filter_map(|c| c.times.iter().min()))
        .copied()
        .min()
        .unwrap_or(0)
        .min(0);
    origin.max(earliest.saturating_neg())
}

fn metadata(session: &Session, base: i64) -> serde_json::Value {
    let mut meta = serde_json::Map::new();
    for (k, v) in &session.properties {
        meta.entry(k.clone()).or_insert_with(|| v.clone().into());
    }
    if let Some(c) = &session.source_clock {
        let domain = match c.name.as_str() {
            "monotonic" => "LINUX_CLOCK_MONOTONIC",
            other => other,
        };
        meta.insert("clock-domain".into(), domain.into());
    }
    let mut own = serde_json::Map::new();
    own.insert("session".into(), session.name.clone().into());
    own.insert("clocks".into(), session.clocks.name().into());
    if let Some(unix) = session.anchor_unix_ns {
        own.insert("anchor_unix_ns".into(), unix.into());
        own.insert("anchor_ts_ns".into(), base.into());
    }
    meta.insert("tracekit".into(), own.into());
    meta.into()
}

/// Appends a JSON string.
fn push_str(buf: &mut Vec<u8>, s: &str) {
    // Writing into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *buf, s);
}

/// Appends a decimal integer.
fn push_u64(buf: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// Appends ns as µs with the ns as three decimals (none when whole).
fn push_micros(buf: &mut Vec<u8>, ns: i64) {
    if ns < 0 {
        buf.push(b'-');
    }
    let a = ns.unsigned_abs();
    push_u64(buf, a / 1000);
    let frac = (a % 1000) as u16;
    if frac != 0 {
        buf.extend_from_slice(&[
            b'.',
            b'0' + (frac / 100) as u8,
            b'0' + (frac / 10 % 10) as u8,
            b'0' + (frac % 10) as u8,
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let mut b = Vec::new();
        push_micros(&mut b, 1_234_567);
        b.push(b' ');
        push_micros(&mut b, 5_000);
        b.push(b' ');
        push_micros(&mut b, -2_050);
        b.push(b' ');
        push_micros(&mut b, 7);
        b.push(b' ');
        push_u64(&mut b, u64::MAX);
        assert_eq!(
            String::from_utf8(b).unwrap(),
            "1234.567 5 -2.050 0.007 18446744073709551615"
        );
    }
}

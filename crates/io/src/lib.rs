//! The one door from a path to a [`Session`]: every command that reads a
//! trace opens it here, and this is the only place that decides which format
//! a file is.
//!
//! [`open`] detects the format from the bytes (magic numbers, first lines),
//! never from the name alone: the extension only breaks ties. It reads
//! Android method traces (`NAME.trace`, with `NAME.clog` beside it when
//! present, as Traceview does: `NAME` alone means both), context logs (which
//! open the trace beside them), native recording directories and object
//! traces. Each format crate says whether a file's first bytes are its own
//! (`sniff`); this crate asks them in a fixed order and calls the winner's
//! reader.
//!
//! Inputs that are not regular files (FIFOs, devices such as `/dev/zero`)
//! are refused before anything is read, so no reader can block or grow
//! without bound on them. [`check_output`] keeps outputs from overwriting
//! the files an input was read from.
//!
//! ```no_run
//! let loaded = tracekit_io::open(std::path::Path::new("session")).unwrap();
//! println!("{} ({}): {} threads", loaded.session.name, loaded.format, loaded.session.threads.len());
//! ```

mod android;
mod detect;

pub use android::{attach_context, save};
pub use detect::{detect, Detected, Format};

use std::path::{Path, PathBuf};
use tracekit_model::Session;

/// The help text every command gives its positional INPUT, so they all
/// describe inputs the same way.
pub const INPUT_HELP: &str = "The trace to read; its format is found from its content. \
NAME means NAME.trace plus NAME.clog when present; also a recording directory, Perfetto, systrace/atrace, Chrome JSON, a power file, an object trace, …";

/// Why a session could not be opened or saved. The message names the file
/// and, for malformed content, the byte offset (or line).
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct Error {
    /// The file concerned.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl Error {
    /// An error about `path`.
    pub fn new(path: &Path, message: impl Into<String>) -> Error {
        Error {
            path: path.to_owned(),
            message: message.into(),
        }
    }
}

/// A session and where it came from.
#[derive(Debug)]
pub struct Loaded {
    /// The session.
    pub session: Session,
    /// The format it was read as.
    pub format: Format,
    /// Every file or directory read (a trace and its context log, say).
    pub inputs: Vec<PathBuf>,
    /// Things worth telling the user (a truncated context log, say).
    pub notes: Vec<String>,
}

impl Loaded {
    /// The method trace or main file read (the first input).
    pub fn trace_path(&self) -> &Path {
        &self.inputs[0]
    }

    /// The context log read, if any.
    pub fn clog_path(&self) -> Option<&Path> {
        self.inputs
            .iter()
            .skip(1)
            .find(|p| p.extension().is_some_and(|e| e == "clog"))
            .map(PathBuf::as_path)
    }
}

/// The base name of an input: `x.trace` and `x.clog` both mean `x`.
pub fn base_of(name: &Path) -> PathBuf {
    match name.extension().and_then(|e| e.to_str()) {
        Some("trace") | Some("clog") => name.with_extension(""),
        _ => name.to_owned(),
    }
}

pub(crate) fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Refuses paths that are not regular files: a FIFO would block a reader for
/// ever and a device such as `/dev/zero` never ends.
pub fn check_regular(path: &Path) -> Result<(), Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::new(path, e.to_string()))?;
    if meta.is_file() {
        Ok(())
    } else if meta.is_dir() {
        Err(Error::new(path, "is a directory, not a file"))
    } else {
        Err(Error::new(
            path,
            "not a regular file (a FIFO, socket or device); tracekit reads traces from files",
        ))
    }
}

/// Receives a recording's calls thread by thread ([`open_streaming`]).
pub use tracekit_recording::RecordingSink as CallStream;

/// Opens `path` handing its calls to `sink` as they are read, when its
/// format can be read that way (recording directories: memory stays bounded
/// by the functions and the call depth, whatever the number of events).
/// The session returned has everything but the calls. `Ok(None)` when the
/// input must be loaded whole ([`open`]).
pub fn open_streaming(path: &Path, sink: &mut impl CallStream) -> Result<Option<Loaded>, Error> {
    let found = detect(path)?;
    if found.format != Format::Recording {
        return Ok(None);
    }
    let mut session = tracekit_recording::stream_recording(&found.path, sink)
        .map_err(|e| Error::new(&found.path, format!("{e:#}")))?;
    let notes = recording_notes(&found.path);
    if session.name.is_empty() {
        session.name = base_of(&found.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    Ok(Some(Loaded {
        session,
        format: found.format,
        inputs: vec![found.path.clone()],
        notes,
    }))
}

fn recording_notes(dir: &Path) -> Vec<String> {
    if dir.join(tracekit_recording::names::META_FILE).is_file() {
        return Vec::new();
    }
    vec![format!(
        "{}: no {} here: the recorder did not finish (killed?) or the runtime ran without `tracekit record`; \
         the events in the thread files are shown, the exit status and clock pairs are unknown",
        dir.display(),
        tracekit_recording::names::META_FILE
    )]
}

/// Opens whatever `path` names, detecting its format (see the crate docs).
pub fn open(path: &Path) -> Result<Loaded, Error> {
    open_window(path, None)
}

pub use tracekit_recording::FirstEvents;

/// For a recording directory holding more than `max_events` events, the
/// window from its start that holds about that many (chosen from block
/// headers, without decoding events); `None` for a smaller recording and
/// for every other format. See [`tracekit_recording::first_events_window`].
pub fn first_events_window(path: &Path, max_events: u64) -> Result<Option<FirstEvents>, Error> {
    let found = detect(path)?;
    if found.format != Format::Recording {
        return Ok(None);
    }
    tracekit_recording::first_events_window(&found.path, max_events)
        .map_err(|e| Error::new(&found.path, format!("{e:#}")))
}

/// [`open`] for a look at a time range `(start, end)` (ns on the session's
/// timeline): a recording directory is read only up to soon after `end`,
/// and keeps only the calls from `start` on (the frames open at `start`
/// enter just before it). Other formats are read whole.
pub fn open_window(path: &Path, range_ns: Option<(u64, u64)>) -> Result<Loaded, Error> {
    let found = detect(path)?;
    let mut notes = Vec::new();
    let (mut session, inputs) = match found.format {
        Format::AndroidTrace | Format::ContextLog => {
            let base = base_of(&found.path);
            let trace = if found.format == Format::ContextLog {
                let t = with_ext(&base, "trace");
                if !t.exists() {
                    return Err(Error::new(
                        &found.path,
                        format!(
                            "a context log alone holds no calls: it is read with the trace beside it, {} (not found)",
                            t.display()
                        ),
                    ));
                }
                check_regular(&t)?;
                t
            } else {
                found.path.clone()
            };
            let (s, read, n) = android::open(&trace, &base)?;
            notes = n;
            (s, read)
        }
        Format::Recording => {
            let s = tracekit_recording::load_recording_window(&found.path, range_ns)
                .map_err(|e| Error::new(&found.path, format!("{e:#}")))?;
            notes = recording_notes(&found.path);
            (s, vec![found.path.clone()])
        }
        Format::ObjectTrace => {
            let s = tracekit_objtrace::read_file(&found.path).map_err(|e| Error::new(&found.path, e.to_string()))?;
            (s, vec![found.path.clone()])
        }
        Format::Systrace => (
            read_with(&found.path, tracekit_ftrace::read_path)?,
            vec![found.path.clone()],
        ),
        Format::Perfetto => (
            read_with(&found.path, tracekit_perfetto::read_path)?,
            vec![found.path.clone()],
        ),
        Format::ChromeJson => (
            read_with(&found.path, tracekit_chrome::read_path)?,
            vec![found.path.clone()],
        ),
        Format::PowerFile => (
            read_with(&found.path, tracekit_power::read_path)?,
            vec![found.path.clone()],
        ),
    };
    if session.name.is_empty() {
        session.name = base_of(&found.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    Ok(Loaded {
        session,
        format: found.format,
        inputs,
        notes,
    })
}

/// Calls a format crate's reader; its errors already name the file.
fn read_with<E: std::fmt::Display>(
    path: &Path,
    read: impl FnOnce(&Path) -> Result<Session, E>,
) -> Result<Session, Error> {
    read(path).map_err(|e| {
        let text = e.to_string();
        let shown = path.display().to_string();
        // Keep the reader's own "FILE: line N: …" rather than naming the file twice.
        let message = text.strip_prefix(&format!("{shown}: ")).unwrap_or(&text).to_owned();
        Error::new(path, message)
    })
}

/// Refuses an output path that would overwrite one of `inputs` (the same
/// file, however it is named). Returns a note to print when the output
/// replaces an existing file.
pub fn check_output(out: &Path, inputs: &[PathBuf]) -> Result<Option<String>, Error> {
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    for input in inputs {
        if same(out, input) {
            return Err(Error::new(
                out,
                format!("would overwrite the input {}; choose another output", input.display()),
            ));
        }
    }
    if out.is_dir() {
        return Err(Error::new(out, "is a directory; give a file name"));
    }
    Ok(out.exists().then(|| format!("replacing {}", out.display())))
}

#[cfg(test)]
mod tests;

/// Brings the tracks of `other`, a capture of the same run made by another
/// tool (a systrace or power capture beside a method trace), onto
/// `primary`'s timeline through the two wall-clock anchors: counters,
/// context items and scheduling slices (threads matched by tid and pid,
/// added when missing). Returns the shift applied to `other`'s times (ns).
pub fn line_up(primary: &mut Session, other: Session, other_path: &Path) -> Result<i64, Error> {
    let (Some(a), Some(b)) = (primary.anchor_unix_ns, other.anchor_unix_ns) else {
        return Err(Error::new(
            other_path,
            format!(
                "cannot line it up with {}: {} has no wall-clock anchor (systrace needs a \
                 `trace_event_clock_sync: realtime_ts=` marker; method traces and recordings carry one)",
                primary.name,
                if primary.anchor_unix_ns.is_none() {
                    "the first input"
                } else {
                    "it"
                }
            ),
        ));
    };
    let shift = b - a;
    for mut c in other.counters {
        for t in &mut c.times {
            *t += shift;
        }
        primary.counters.push(c);
    }
    for mut t in other.context {
        t.shift(shift);
        primary.context.push(t);
    }
    for s in other.sched {
        let from = &other.threads[s.thread.0 as usize];
        let ts = s.ts_ns as i64 + shift;
        if ts < 0 {
            continue;
        }
        let thread = primary.thread_by_tid(from.tid, from.pid);
        if primary.thread(thread).name.is_empty() && !from.name.is_empty() {
            primary.threads[thread.0 as usize].name = from.name.clone();
        }
        primary.sched.push(tracekit_model::SchedSlice {
            ts_ns: ts as u64,
            thread,
            ..s
        });
    }
    primary.properties.extend(other.properties);
    Ok(shift)
}

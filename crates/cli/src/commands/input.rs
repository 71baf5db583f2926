//! Shared helpers: opening inputs, choosing threads, printing safely.

use anyhow::{bail, Result};
use std::borrow::Cow;
use std::path::Path;
use tracekit_model::{Session, ThreadId};

/// Opens any input through the one door (`tracekit-io`) and prints the
/// loader's notes, the repairs it made and lost events to stderr.
pub fn open(name: &Path) -> Result<Session> {
    Ok(open_loaded(name)?.session)
}

/// [`open`], keeping what the door knows about the input (format, files read).
pub fn open_loaded(name: &Path) -> Result<tracekit_io::Loaded> {
    open_window(name, &TimeRange::default())
}

/// [`open_loaded`] for a look at a time window: a recording is read only
/// up to its end and keeps only the calls from its start on.
pub fn open_window(name: &Path, range: &TimeRange) -> Result<tracekit_io::Loaded> {
    open_window_ns(name, range.read_ns()?)
}

/// [`open_window`] for a window already in ns on the session's timeline.
pub fn open_window_ns(name: &Path, range_ns: Option<(u64, u64)>) -> Result<tracekit_io::Loaded> {
    let loaded = {
        let _reading = reading_bar(name);
        tracekit_io::open_window(name, range_ns)?
    };
    announce(&loaded);
    Ok(loaded)
}

/// A session without calls, what was computed from its calls as they were
/// read, and the selection they were read with.
pub struct Streamed {
    /// The session, without its calls.
    pub session: Session,
    /// The profile of the selected calls, when asked for.
    pub profile: Option<tracekit_analysis::Profile>,
    /// The call tree of the selected calls, when asked for.
    pub tree: Option<tracekit_analysis::CallTree>,
    /// Each selected thread's own profile, in thread order, when asked for.
    pub per_thread: Vec<(ThreadId, tracekit_analysis::Profile)>,
    /// The selection, as the loaded path would have made it.
    pub options: tracekit_analysis::ProfileOptions,
}

/// What [`stream_analysis`] computes as the calls stream.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wanted {
    /// The profile of the selection.
    pub profile: bool,
    /// The call tree of the selection.
    pub tree: bool,
    /// A profile of each selected thread on its own.
    pub per_thread: bool,
}

/// Set (to anything) to load every input whole, as formats that cannot
/// stream are: the reference the streamed results are tested against, and
/// a way to rule streaming out when a result looks wrong.
pub const LOAD_WHOLE_ENV: &str = "TRACEKIT_LOAD_WHOLE";

/// Streams the input's calls into a profile and/or call tree when its
/// format allows (recording directories), so that memory does not grow
/// with the number of events; `None` when it must be loaded whole. The
/// selection is applied as the calls stream: `--thread` hands over only
/// the named threads' calls, and `--when` is evaluated on the recording's
/// context before the first call (a condition that cannot be evaluated
/// there, e.g. on a track the calls bring, falls back to the whole load).
/// Per-thread profiles cost memory per thread and method, never per event.
pub fn stream_analysis(name: &Path, select: &Selection, wanted: Wanted) -> Result<Option<Streamed>> {
    use tracekit_analysis::StreamAnalysis;
    struct Feed<'a> {
        analysis: StreamAnalysis,
        threads: &'a [String],
        when: Option<tracekit_analysis::Condition>,
        /// `--when` could not be evaluated on the context alone.
        unevaluated: bool,
        /// The threads fed, in order (their profiles come out in this order).
        fed: Vec<ThreadId>,
        /// `--from-us`/`--to-us`.
        range: Option<tracekit_analysis::IntervalSet>,
        /// `--from-us`/`--to-us` in ns.
        span: Option<(u64, u64)>,
    }
    impl tracekit_io::CallStream for Feed<'_> {
        fn wants(&mut self, t: &tracekit_model::Thread) -> bool {
            !self.unevaluated && (self.threads.is_empty() || self.threads.iter().any(|w| thread_matches(t, w)))
        }
        fn time_range_ns(&self) -> Option<(u64, u64)> {
            // Only the window's calls are analysed, and the recording is
            // read only up to its end.
            self.span
        }
        fn wants_context(&self) -> bool {
            self.when.is_some()
        }
        fn context(&mut self, context: &Session) {
            let Some(when) = &self.when else { return };
            // The session's end is not known yet: the last interval is
            // left open, which counts the same time (no call lies past it).
            match when.intervals(context, i64::MAX / 4) {
                Ok(w) => self.analysis.set_window(match &self.range {
                    Some(r) => w.intersect(r),
                    None => w,
                }),
                Err(_) => self.unevaluated = true,
            }
        }
        fn begin_thread(&mut self, id: ThreadId, _: u64) {
            self.analysis.begin_thread();
            self.fed.push(id);
        }
        fn call(&mut self, e: tracekit_model::CallEvent) {
            self.analysis.event(&e);
        }
        fn end_thread(&mut self, _: ThreadId) {
            self.analysis.end_thread();
        }
    }
    if std::env::var_os(LOAD_WHOLE_ENV).is_some() {
        return Ok(None);
    }
    // A condition that does not parse is refused before any reading.
    let when = match &select.when {
        Some(w) => Some(tracekit_analysis::Condition::parse(w).map_err(|e| anyhow::anyhow!("--when {w:?}: {e}"))?),
        None => None,
    };
    let range = select.range.interval()?;
    let span = select.range.read_ns()?;
    let mut analysis = StreamAnalysis::new(wanted.profile || wanted.per_thread, wanted.tree);
    if wanted.per_thread {
        analysis.keep_thread_profiles();
    }
    if let Some(r) = &range {
        analysis.set_window(r.clone());
    }
    let mut feed = Feed {
        analysis,
        threads: &select.threads.threads,
        when,
        unevaluated: false,
        fed: Vec::new(),
        range,
        span,
    };
    let opened = {
        let _reading = reading_bar(name);
        tracekit_io::open_streaming(name, &mut feed)?
    };
    let Some(loaded) = opened else {
        return Ok(None);
    };
    if feed.unevaluated {
        return Ok(None);
    }
    announce(&loaded);
    // Names every thread when a `--thread` matched none, and gives the
    // window on the whole session's horizon for the report.
    let options = select.options(&loaded.session)?;
    let clocks = loaded.session.clocks;
    let (profile, tree, own) = feed.analysis.finish_with_threads(clocks, &loaded.session.methods);
    let mut per_thread: Vec<(ThreadId, tracekit_analysis::Profile)> = feed.fed.into_iter().zip(own).collect();
    if wanted.per_thread {
        // Every selected thread has a row, as in the loaded profile, even
        // one whose calls were empty or not streamed.
        for (id, _, _) in loaded.session.thread_calls() {
            let selected = options.threads.as_ref().is_none_or(|t| t.contains(&id));
            if selected && !per_thread.iter().any(|(t, _)| *t == id) {
                let empty = StreamAnalysis::new(true, false)
                    // No rows to order: no method table to rank.
                    .finish(clocks, &tracekit_model::MethodTable::new())
                    .0
                    .expect("profile");
                per_thread.push((id, empty));
            }
        }
        per_thread.retain(|(id, _)| options.threads.as_ref().is_none_or(|t| t.contains(id)));
        per_thread.sort_by_key(|(id, _)| *id);
    }
    Ok(Some(Streamed {
        session: loaded.session,
        profile,
        tree,
        per_thread,
        options,
    }))
}

/// Opens the input handing its calls to `sink` as they are read, when its
/// format allows (recording directories), and prints what [`open`] prints;
/// `None` when it must be loaded whole.
pub fn open_streaming(name: &Path, sink: &mut impl tracekit_io::CallStream) -> Result<Option<tracekit_io::Loaded>> {
    if std::env::var_os(LOAD_WHOLE_ENV).is_some() {
        return Ok(None);
    }
    let opened = {
        let _reading = reading_bar(name);
        tracekit_io::open_streaming(name, sink)?
    };
    let Some(loaded) = opened else {
        return Ok(None);
    };
    announce(&loaded);
    Ok(Some(loaded))
}

/// A byte bar on stderr following the file the door resolves `name` to.
fn reading_bar(name: &Path) -> crate::progress::Step {
    let file = tracekit_io::detect(name).map_or_else(|_| name.to_owned(), |d| d.path);
    let shown = file
        .file_name()
        .map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    crate::progress::reading(format!("reading {}", safe(&shown)), &file)
}

/// Prints the loader's notes, the repairs it made and lost events to stderr.
fn announce(loaded: &tracekit_io::Loaded) {
    for n in &loaded.notes {
        super::note(n);
    }
    for r in &loaded.session.repairs {
        super::note(format_args!("repaired {} ({}×): {}", r.code, r.count, r.detail));
    }
    if loaded.session.lost_events > 0 {
        super::warning(format_args!(
            "{} events were lost while recording (a buffer was full): counts and times below miss them",
            loaded.session.lost_events
        ));
    }
}

/// The line every report prints when events were lost while recording.
pub fn lost_line(s: &Session) -> Option<String> {
    (s.lost_events > 0).then(|| {
        format!(
            "LOST EVENTS: {} events were dropped while recording (buffers full); the counts and times below miss them",
            s.lost_events
        )
    })
}

/// The error for an output that cannot be created, naming the file the
/// user gave and what to do when that is clear (a missing directory, a
/// directory without write permission).
pub fn cannot_write(out: &Path, e: &std::io::Error) -> anyhow::Error {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let hint = match e.kind() {
        std::io::ErrorKind::NotFound if !dir.is_dir() => {
            format!("the directory {} does not exist (create it first)", dir.display())
        }
        std::io::ErrorKind::PermissionDenied => {
            format!("no permission to write in {} (choose another -o)", dir.display())
        }
        _ => e.to_string(),
    };
    anyhow::anyhow!("{}: cannot write: {hint}", out.display())
}

/// Why a session has no context, and what to do about it, naming the file.
pub fn no_context_message(format: tracekit_io::Format, file: &Path) -> String {
    match format {
        tracekit_io::Format::AndroidTrace | tracekit_io::Format::ContextLog => {
            let mut clog = tracekit_io::base_of(file).into_os_string();
            clog.push(".clog");
            let clog = std::path::PathBuf::from(clog);
            format!(
                "{}: no context log beside the trace: context commands need {} \
                 (the context log recorded on the phone during the same run)",
                file.display(),
                clog.display()
            )
        }
        f => format!(
            "{}: no context items: this {} has no counters or context samples \
             (give a capture that has them, or add power with `energy --power FILE`)",
            file.display(),
            f.describe()
        ),
    }
}

/// Refuses an output that would overwrite one of the input's files, and
/// says on stderr when it replaces an existing file.
pub fn check_output(out: &Path, loaded: &tracekit_io::Loaded) -> Result<()> {
    if let Some(note) = tracekit_io::check_output(out, &loaded.inputs)? {
        super::note(note);
    }
    Ok(())
}

/// A name from the input made safe for the terminal: control characters
/// (escape sequences) are shown escaped, never obeyed.
pub fn safe(name: &str) -> Cow<'_, str> {
    tracekit_safeio::terminal(name)
}

/// The thread filter every trace command shares.
#[derive(Debug, Clone, clap::Args)]
pub struct ThreadFilter {
    /// Only these threads: a thread id or a thread name (repeatable).
    #[arg(long = "thread", value_name = "TID|NAME", alias = "tid")]
    pub threads: Vec<String>,
}

impl ThreadFilter {
    /// The matching threads of `session` (`None`: all).
    pub fn resolve(&self, session: &Session) -> Result<Option<Vec<ThreadId>>> {
        threads(session, &self.threads)
    }
}

/// Which threads and which time an analysis looks at (shared by `profile`
/// and `calltree`).
#[derive(Debug, clap::Args)]
pub struct Selection {
    #[command(flatten)]
    pub threads: ThreadFilter,
    /// Only the time where this context condition holds, e.g. "Screen orientation == 1".
    #[arg(long, value_name = "CONDITION")]
    pub when: Option<String>,
    #[command(flatten)]
    pub range: TimeRange,
}

/// `--from-us`/`--to-us`: a time window on the session's timeline.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TimeRange {
    /// Start of a time window, µs on the session's timeline (with `--to-us`).
    #[arg(long, requires = "to_us", value_name = "US")]
    pub from_us: Option<f64>,
    /// End of the time window, µs. A recording is read only up to it.
    #[arg(long, requires = "from_us", value_name = "US")]
    pub to_us: Option<f64>,
}

impl TimeRange {
    /// The window in ns, `(start, end)`; refused when it is not a range.
    pub fn ns(&self) -> Result<Option<(i64, i64)>> {
        let (Some(from), Some(to)) = (self.from_us, self.to_us) else {
            return Ok(None);
        };
        // The same µs → ns conversion and check as `energy --from-us`.
        match tracekit_energy::range_us(from, to) {
            Ok(w) => Ok(Some((w.from_ns, w.to_ns))),
            Err(_) => bail!("--from-us {from} --to-us {to}: not a time range (the start must not be after the end)"),
        }
    }

    /// The window as an interval set.
    pub fn interval(&self) -> Result<Option<tracekit_analysis::IntervalSet>> {
        Ok(self.ns()?.map(|(a, b)| tracekit_analysis::IntervalSet::single(a, b)))
    }

    /// The window as a reader takes it (times before the session's start
    /// are its start).
    pub fn read_ns(&self) -> Result<Option<(u64, u64)>> {
        Ok(self.ns()?.map(|(a, b)| (a.max(0) as u64, b.max(0) as u64)))
    }
}

impl Selection {
    /// Resolves the selection against a session.
    pub fn options(&self, s: &Session) -> Result<tracekit_analysis::ProfileOptions> {
        use tracekit_analysis::{problems::horizon, Condition};
        let threads = self.threads.resolve(s)?;
        let when = match &self.when {
            Some(w) => Some(
                Condition::parse(w)
                    .and_then(|c| c.intervals(s, horizon(s)))
                    .map_err(|e| anyhow::anyhow!("--when {w:?}: {e}"))?,
            ),
            None => None,
        };
        let window = match (when, self.range.interval()?) {
            (Some(w), Some(r)) => Some(w.intersect(&r)),
            (w, r) => w.or(r),
        };
        Ok(tracekit_analysis::ProfileOptions { threads, window })
    }
}

/// Threads matching `--thread` values (a tid or a name); all when empty.
pub fn threads(session: &Session, wanted: &[String]) -> Result<Option<Vec<ThreadId>>> {
    if wanted.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::new();
    for w in wanted {
        let found: Vec<ThreadId> = session
            .threads
            .iter()
            .enumerate()
            .filter(|(_, t)| thread_matches(t, w))
            .map(|(i, _)| ThreadId(i as u32))
            .collect();
        if found.is_empty() {
            let names: Vec<String> = session
                .threads
                .iter()
                .map(|t| format!("{} ({})", t.label(), t.tid))
                .collect();
            bail!(
                "no thread {w:?} (--thread takes a thread id or name); threads are: {}",
                names.join(", ")
            );
        }
        out.extend(found);
    }
    Ok(Some(out))
}

/// True when a `--thread` value names `t`: its thread id or its name.
fn thread_matches(t: &tracekit_model::Thread, wanted: &str) -> bool {
    t.name == wanted || wanted.parse::<u32>().is_ok_and(|tid| tid == t.tid)
}

/// ns → milliseconds with three decimals.
pub fn ms(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// Prints a serializable report on stdout as pretty JSON.
pub fn print_json<T: serde::Serialize + ?Sized>(v: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

/// A time option in µs: refuses NaN and infinities, which no time equals.
pub fn finite_us(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of µs"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("`{s}` is not a finite number of µs"))
    }
}

/// Seconds as a positive finite number.
pub fn positive_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("`{s}` is not a positive, finite number of seconds"))
    }
}

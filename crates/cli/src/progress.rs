//! Progress on long work, drawn on stderr with `indicatif`.
//!
//! A [`Step`] is one piece of work that may take a while: reading an input
//! (a byte bar), writing an output (bytes written so far), or anything else
//! (a spinner with the elapsed time). It is drawn only when stderr is a
//! terminal, `--quiet` was not given, and the step has lasted longer than
//! a short delay, so quick commands print exactly what they printed before.
//!
//! Nothing here touches the code doing the work: a background thread
//! samples how far it has got from outside. For a file being read, that is
//! the file offset the kernel keeps for every descriptor open on it
//! (`/proc/self/fdinfo/N`, `pos:`), so the format crates stay free of user
//! interface code and their hot loops do not change at all; a reader that
//! goes over the file twice (the Android reader does, to size its columns)
//! shows its second pass as such. For a file being written it is the file's
//! size. Only the most recently started step is drawn; an older one comes
//! back when the newer ends.
//!
//! ```ignore
//! let _step = crate::progress::step("building the call tree");
//! let tree = compute();            // a spinner after the delay, gone on drop
//! ```

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a step runs before it is drawn (`TRACEKIT_PROGRESS_DELAY_MS`
/// overrides it; tests set 0).
const DEFAULT_DELAY: Duration = Duration::from_millis(700);
/// How often the sampler looks and redraws.
const TICK: Duration = Duration::from_millis(100);

static QUIET: AtomicBool = AtomicBool::new(false);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// Steps in the order they started; only the last is drawn.
static STACK: Mutex<Vec<u64>> = Mutex::new(Vec::new());
/// The bar on screen now, so messages can be printed above it.
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// `--quiet`: no progress and no notes.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// True when `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// True when progress is drawn at all: stderr is a terminal that can move
/// its cursor and `--quiet` was not given.
pub fn enabled() -> bool {
    !quiet() && std::io::stderr().is_terminal() && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

fn delay() -> Duration {
    std::env::var("TRACEKIT_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(DEFAULT_DELAY, Duration::from_millis)
}

/// Runs `print` (a message to stderr) with the bar on screen cleared first
/// and redrawn after, so the two never share a line.
pub fn above(print: impl FnOnce()) {
    let shown = SHOWN.lock().ok().and_then(|s| s.clone());
    match shown {
        Some(bar) => bar.suspend(print),
        None => print(),
    }
}

/// What a step's sampler measures.
enum Measure {
    /// Nothing: a spinner with the elapsed time.
    Elapsed,
    /// How far into `path` (canonical) the reader's file offset is.
    ReadPosition { path: PathBuf, total: u64 },
    /// The summed sizes of files being written.
    Written { paths: Vec<PathBuf> },
}

/// A step of work shown while it lasts; dropping it removes its line.
pub struct Step {
    id: u64,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// A step without a measurable size: a spinner with the elapsed time.
pub fn step(label: impl Into<String>) -> Step {
    Step::start(label.into(), Measure::Elapsed)
}

/// Reading `path`: a byte bar (a spinner for a directory, such as a
/// recording, whose files are mapped rather than read).
pub fn reading(label: impl Into<String>, path: &Path) -> Step {
    let measure = match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() > 0 => match std::fs::canonicalize(path) {
            Ok(path) => Measure::ReadPosition { path, total: m.len() },
            Err(_) => Measure::Elapsed,
        },
        _ => Measure::Elapsed,
    };
    Step::start(label.into(), measure)
}

/// Writing `paths` (any of which may not exist yet, such as the temporary
/// file an output is written to before it is renamed): bytes written so far.
pub fn writing(label: impl Into<String>, paths: Vec<PathBuf>) -> Step {
    Step::start(label.into(), Measure::Written { paths })
}

impl Step {
    fn start(label: String, measure: Measure) -> Step {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let done = Arc::new(AtomicBool::new(false));
        if !enabled() {
            return Step { id, done, thread: None };
        }
        if let Ok(mut stack) = STACK.lock() {
            stack.push(id);
        }
        let flag = Arc::clone(&done);
        let thread = std::thread::Builder::new()
            .name("tracekit-progress".into())
            .spawn(move || sample(id, &label, measure, &flag))
            .ok();
        Step { id, done, thread }
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        let Some(thread) = self.thread.take() else { return };
        self.done.store(true, Ordering::Release);
        thread.thread().unpark();
        let _ = thread.join();
        if let Ok(mut stack) = STACK.lock() {
            stack.retain(|&s| s != self.id);
        }
    }
}

fn on_top(id: u64) -> bool {
    STACK.lock().map(|s| s.last() == Some(&id)).unwrap_or(false)
}

/// The sampler thread of one step: waits out the delay, then draws while
/// the step is the newest, until the step ends.
fn sample(id: u64, label: &str, measure: Measure, done: &AtomicBool) {
    let started = Instant::now();
    let delay = delay();
    while !done.load(Ordering::Acquire) && started.elapsed() < delay {
        std::thread::park_timeout((delay - started.elapsed()).min(TICK));
    }
    let mut bar: Option<ProgressBar> = None;
    let mut last_pos = 0u64;
    let mut pass = 1u32;
    while !done.load(Ordering::Acquire) {
        let (pos, note) = match &measure {
            Measure::Elapsed => (0, String::new()),
            Measure::ReadPosition { path, total } => match read_position(path) {
                Some(p) => {
                    // A reader that starts again from the top is on its next pass.
                    if p + total / 8 < last_pos {
                        pass += 1;
                    }
                    last_pos = p;
                    (
                        p.min(*total),
                        if pass > 1 {
                            format!(" (pass {pass})")
                        } else {
                            String::new()
                        },
                    )
                }
                None => (last_pos, String::new()),
            },
            Measure::Written { paths } => (
                paths
                    .iter()
                    .filter_map(|p| std::fs::metadata(p).ok())
                    .map(|m| m.len())
                    .sum(),
                String::new(),
            ),
        };
        if on_top(id) {
            let b = bar.get_or_insert_with(|| {
                let b = new_bar(&measure, started.elapsed());
                set_shown(Some(b.clone()));
                b
            });
            b.set_message(format!("{label}{note}"));
            b.set_position(pos);
            b.tick();
        } else if let Some(b) = bar.take() {
            b.finish_and_clear();
        }
        std::thread::park_timeout(TICK);
    }
    if let Some(b) = bar {
        b.finish_and_clear();
        set_shown(None);
    }
}

fn set_shown(bar: Option<ProgressBar>) {
    if let Ok(mut s) = SHOWN.lock() {
        *s = bar;
    }
}

fn new_bar(measure: &Measure, elapsed: Duration) -> ProgressBar {
    let (bar, template) = match measure {
        // The label (`wide_msg`) takes the width the rest leaves and is cut
        // short to fit, so the line never wraps on a narrow terminal.
        Measure::ReadPosition { total, .. } => (
            ProgressBar::new(*total),
            "{spinner} {wide_msg} {bytes:>10}/{total_bytes} [{bar:20}] {eta:>3} left",
        ),
        Measure::Written { .. } => (
            ProgressBar::new_spinner(),
            "{spinner} {wide_msg} {bytes:>10} written, {elapsed}",
        ),
        Measure::Elapsed => (ProgressBar::new_spinner(), "{spinner} {wide_msg} {elapsed}"),
    };
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
        .progress_chars("=> ");
    let bar = bar.with_style(style).with_elapsed(elapsed);
    bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(10));
    bar
}

/// The largest file offset of any descriptor this process has open on
/// `path` (Linux `/proc/self/fdinfo`); `None` when none is open.
fn read_position(path: &Path) -> Option<u64> {
    let mut best = None;
    for entry in std::fs::read_dir("/proc/self/fd").ok()?.flatten() {
        if std::fs::read_link(entry.path()).ok().as_deref() != Some(path) {
            continue;
        }
        let info = std::fs::read_to_string(Path::new("/proc/self/fdinfo").join(entry.file_name())).ok()?;
        let pos = info
            .lines()
            .find_map(|l| l.strip_prefix("pos:"))
            .and_then(|v| v.trim().parse::<u64>().ok());
        best = best.max(pos);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn the_read_position_follows_a_reader_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        std::fs::write(&path, vec![7u8; 100_000]).unwrap();
        let canonical = std::fs::canonicalize(&path).unwrap();
        assert_eq!(read_position(&canonical), None, "no descriptor open yet");
        let mut f = std::fs::File::open(&path).unwrap();
        let mut buf = vec![0u8; 30_000];
        f.read_exact(&mut buf).unwrap();
        assert_eq!(read_position(&canonical), Some(30_000));
        f.read_exact(&mut buf).unwrap();
        assert_eq!(read_position(&canonical), Some(60_000));
        drop(f);
        assert_eq!(read_position(&canonical), None);
    }

    #[test]
    fn steps_draw_nothing_without_a_terminal() {
        // `cargo test` captures stderr through a pipe: no thread is started.
        if std::io::stderr().is_terminal() {
            return;
        }
        let s = step("work");
        assert!(s.thread.is_none());
    }
}

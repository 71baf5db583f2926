//! `tracekit record`: runs a command with the runtime preloaded and the
//! context sampler beside it, then writes `recording.json`.

use crate::clock::{clock_pair, monotonic_ns, realtime_ns};
use anyhow::Context as _;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tracekit_recording::meta::RecordingMeta;
use tracekit_rt_format::names::{self, RecordingFile};

/// File name of the runtime shared library.
pub const RUNTIME_LIB: &str = "libtracekit_rt.so";

/// Capacity in KiB a busy thread's ring moves up to by default: on a
/// 10⁹-call run, 32 MiB made the traced run 1.03× the untraced one where
/// 8 MiB made it 1.19× (BENCHMARKS.md), but faulting 32 MiB in when every
/// thread starts would cost short runs about 25 ms each.
pub const DEFAULT_RING_MAX_KB: usize = 32 << 10;

/// What to record and how.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// Output directory.
    pub out: PathBuf,
    /// Command and arguments.
    pub command: Vec<String>,
    /// Selection (`TRACEKIT_FILTER` syntax: `module:GLOB`, `class:GLOB`, `GLOB`).
    pub filter: Option<String>,
    /// Per-thread buffer capacity in MiB.
    pub buffer_mb: Option<usize>,
    /// Event clock: `tsc` (default), `monotonic` or `order`.
    pub clock: Option<String>,
    /// Write thread files directly instead of through ring buffers drained by the recorder.
    pub direct: bool,
    /// Ring buffer capacity each thread starts with, in KiB (default 8192).
    pub ring_kb: Option<usize>,
    /// Ring buffer capacity a busy thread moves up to, in KiB (default
    /// [`DEFAULT_RING_MAX_KB`]; at or below the starting capacity, rings keep
    /// their size).
    pub ring_max_kb: Option<usize>,
    /// Drop (and count) events when a ring is full; by default the writing
    /// thread waits for the drainer, so nothing is lost.
    pub drop_on_overflow: bool,
    /// Runtime library to preload (found next to the executable when `None`).
    pub runtime: Option<PathBuf>,
    /// Replace a recording already in `out` (otherwise that is an error, so
    /// a recording is never deleted by accident).
    pub replace: bool,
}

/// How the traced command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordOutcome {
    /// Exit code, when it exited.
    pub exit_code: Option<i32>,
    /// Killing signal, when it was killed.
    pub signal: Option<i32>,
    /// The drainer's counts of events and lost events (`None` with
    /// `direct`, where the runtime wrote the thread files itself: read them
    /// with `tracekit_recording::recording_stats`).
    pub drained: Option<crate::drain::DrainTotals>,
}

/// Finds the runtime library: `$TRACEKIT_RT`, else the newest of those next
/// to (or under) the running executable's directory.
pub fn find_runtime() -> anyhow::Result<PathBuf> {
    if let Some(p) = std::env::var_os("TRACEKIT_RT") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [
        dir.join(RUNTIME_LIB),
        dir.join("deps").join(RUNTIME_LIB),
        dir.join("../lib").join(RUNTIME_LIB),
        dir.join("..").join(RUNTIME_LIB),
    ];
    // Several may exist in a cargo target directory (uplifted and deps/):
    // take the newest, so a stale copy is never preloaded.
    candidates
        .iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.modified().ok()?, p)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p.clone())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "cannot find {RUNTIME_LIB} next to {} (build it with `cargo build -p tracekit-rt` or set TRACEKIT_RT)",
                exe.display()
            )
        })
}

/// True when `dir` holds any file of a recording.
pub fn holds_recording(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|d| {
        d.flatten()
            .any(|e| names::parse(&e.file_name().to_string_lossy()).is_some())
    })
}

/// Removes the files of an earlier recording from `dir`.
fn clear_recording(dir: &Path) -> anyhow::Result<()> {
    for e in std::fs::read_dir(dir)?.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if names::parse(&n).is_some() {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

/// Records `opts.command`. `sampler`, when given, is the context sampler
/// command (a separate process; it gets the traced pid appended as
/// `--pid N` and stops when its standard input closes).
pub fn record(opts: &RecordOptions, sampler: Option<Command>) -> anyhow::Result<RecordOutcome> {
    anyhow::ensure!(!opts.command.is_empty(), "no command to record");
    if !opts.replace && holds_recording(&opts.out) {
        anyhow::bail!(
            "{}: already holds a recording; replacing it needs --force (or choose another -o)",
            opts.out.display()
        );
    }
    std::fs::create_dir_all(&opts.out).with_context(|| format!("{}: cannot create", opts.out.display()))?;
    let out = std::fs::canonicalize(&opts.out)?;
    clear_recording(&out)?;
    let runtime = match &opts.runtime {
        Some(r) => r.clone(),
        None => find_runtime()?,
    };
    let runtime =
        std::fs::canonicalize(&runtime).with_context(|| format!("{}: runtime library not found", runtime.display()))?;
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", runtime.display()),
        _ => runtime.display().to_string(),
    };
    let first_pair = clock_pair();
    let anchor_mono_ns = monotonic_ns();
    let anchor_unix_ns = realtime_ns() as i64;
    let mut cmd = Command::new(&opts.command[0]);
    cmd.args(&opts.command[1..])
        .env("LD_PRELOAD", preload)
        .env("TRACEKIT_DIR", &out);
    if let Some(f) = &opts.filter {
        cmd.env("TRACEKIT_FILTER", f);
    }
    if let Some(c) = &opts.clock {
        cmd.env("TRACEKIT_CLOCK", c);
    }
    if let Some(mb) = opts.buffer_mb {
        cmd.env("TRACEKIT_BUFFER_MB", mb.to_string());
    }
    let drainer = if opts.direct {
        None
    } else {
        let shm = Path::new("/dev/shm");
        let base = if shm.is_dir() { shm.to_path_buf() } else { out.clone() };
        let ring_dir = base.join(format!(".tracekit-rings-{}-{}", std::process::id(), realtime_ns()));
        std::fs::create_dir_all(&ring_dir).with_context(|| format!("{}: cannot create", ring_dir.display()))?;
        cmd.env("TRACEKIT_RING_DIR", &ring_dir);
        if let Some(kb) = opts.ring_kb {
            cmd.env("TRACEKIT_RING_KB", kb.to_string());
        }
        cmd.env("TRACEKIT_OVERFLOW", if opts.drop_on_overflow { "drop" } else { "wait" });
        // Rounded like the runtime rounds `TRACEKIT_RING_KB`.
        let grow_to = (opts.ring_max_kb.unwrap_or(DEFAULT_RING_MAX_KB).clamp(64, 1 << 20) << 10).next_power_of_two();
        Some(crate::drain::Drainer::start(ring_dir, out.clone(), grow_to as u64))
    };
    // Ctrl-C reaches the program (same process group); the recorder ignores
    // it while the program runs so it can still drain the rings and write
    // recording.json. The program gets default dispositions back.
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGQUIT, libc::SIG_DFL);
            Ok(())
        });
    }
    // SAFETY: plain disposition changes of our own process.
    let (old_int, old_quit) = unsafe {
        (
            libc::signal(libc::SIGINT, libc::SIG_IGN),
            libc::signal(libc::SIGQUIT, libc::SIG_IGN),
        )
    };
    // Orphaned descendants of the program are reparented to us (not to
    // init), so we can wait for them.
    crate::descendants::become_subreaper();
    let spawned = cmd.spawn().with_context(|| format!("cannot start {}", opts.command[0]));
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            // SAFETY: restoring the dispositions saved above.
            unsafe {
                libc::signal(libc::SIGINT, old_int);
                libc::signal(libc::SIGQUIT, old_quit);
            }
            return Err(e);
        }
    };
    let mut sampler_child = match sampler {
        Some(mut s) => Some(
            s.arg("--pid")
                .arg(child.id().to_string())
                .stdin(Stdio::piped())
                .spawn()
                .context("cannot start the context sampler")?,
        ),
        None => None,
    };
    let status = child.wait();
    // The program has ended; processes it started may still run (a daemon,
    // a child whose parent did not wait). They were reparented to us: wait
    // for them too, so that the recording is complete when we return.
    if status.is_ok() {
        crate::descendants::wait_for_descendants(&out);
    }
    // SAFETY: restoring the dispositions saved above.
    unsafe {
        libc::signal(libc::SIGINT, old_int);
        libc::signal(libc::SIGQUIT, old_quit);
    }
    let status = status?;
    // Keep the two clock pairs at least 50 ms apart for a precise tick rate.
    let min_end = anchor_mono_ns + 50_000_000;
    let now = monotonic_ns();
    if now < min_end {
        std::thread::sleep(std::time::Duration::from_nanos(min_end - now));
    }
    let last_pair = clock_pair();
    let drained = match drainer {
        Some(d) => Some(d.finish().context("copying the ring buffers into the recording")?),
        None => None,
    };
    if let Some(mut s) = sampler_child.take() {
        drop(s.stdin.take());
        let st = s.wait()?;
        if !st.success() {
            eprintln!("tracekit: context sampler ended with {st}");
        }
    }
    // Without rings the runtime sized each thread file at its full capacity
    // (sparse): cut the unused tails. (The drainer's files are already exact.)
    if opts.direct {
        for e in std::fs::read_dir(&out)?.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if let Some(RecordingFile::Thread { .. }) = names::parse(&n) {
                tracekit_recording::thread_file::trim_thread_file(&e.path())?;
            }
        }
    }
    let outcome = RecordOutcome {
        exit_code: status.code(),
        signal: status.signal(),
        drained,
    };
    RecordingMeta {
        version: 1,
        command: opts.command.clone(),
        anchor_unix_ns,
        anchor_mono_ns,
        clock_pairs: vec![first_pair, last_pair],
        exit_code: outcome.exit_code,
        signal: outcome.signal,
        filter: opts.filter.clone(),
    }
    .write(&out)?;
    Ok(outcome)
}

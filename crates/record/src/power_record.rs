//! `tracekit power record`: samples power (and, if asked, other context)
//! while a command runs, or for a set time, into a recording directory
//! that holds no thread files: `recording.json` and `context.jsonl`. Any
//! program can be measured this way; no instrumentation is needed.

use crate::clock::{monotonic_ns, realtime_ns};
use crate::context::{run_sampler, SamplerConfig};
use crate::RecordOutcome;
use anyhow::Context as _;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracekit_recording::meta::RecordingMeta;
use tracekit_recording::names::{CONTEXT_FILE, META_FILE};

/// What to sample and for how long.
#[derive(Debug, Clone)]
pub struct PowerRecordOptions {
    /// Output directory.
    pub out: PathBuf,
    /// The sampler's settings (sources, period, roots, trace marker).
    pub sampler: SamplerConfig,
    /// Command to run while sampling (sampling ends when it exits).
    pub command: Vec<String>,
    /// Without a command: how long to sample (until interrupted when `None`).
    pub duration: Option<Duration>,
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Samples until the command exits, the duration passes or SIGINT/SIGTERM
/// arrives, then writes `recording.json`. Returns how the command ended.
pub fn power_record(opts: &PowerRecordOptions) -> anyhow::Result<RecordOutcome> {
    std::fs::create_dir_all(&opts.out).with_context(|| format!("{}: cannot create", opts.out.display()))?;
    let anchor_mono_ns = monotonic_ns();
    let anchor_unix_ns = realtime_ns() as i64;
    let stop = Arc::new(AtomicBool::new(false));
    INTERRUPTED.store(false, Ordering::SeqCst);
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_interrupt as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_interrupt as *const () as libc::sighandler_t);
    }
    let sampler = {
        let stop = Arc::clone(&stop);
        let cfg = opts.sampler.clone();
        let out = opts.out.join(CONTEXT_FILE);
        std::thread::spawn(move || {
            run_sampler(&cfg, &out, |left| {
                // Sleep in slices so a stop request is seen within 10 ms.
                let until = Instant::now() + left;
                loop {
                    if stop.load(Ordering::SeqCst) || INTERRUPTED.load(Ordering::SeqCst) {
                        return true;
                    }
                    let now = Instant::now();
                    if now >= until {
                        return false;
                    }
                    std::thread::sleep((until - now).min(Duration::from_millis(10)));
                }
            })
        })
    };
    let mut outcome = RecordOutcome {
        exit_code: None,
        signal: None,
        drained: None,
    };
    if opts.command.is_empty() {
        let end = opts.duration.map(|d| Instant::now() + d);
        while !INTERRUPTED.load(Ordering::SeqCst) && end.is_none_or(|e| Instant::now() < e) {
            std::thread::sleep(Duration::from_millis(50));
        }
    } else {
        let status = std::process::Command::new(&opts.command[0])
            .args(&opts.command[1..])
            .status()
            .with_context(|| format!("cannot start {}", opts.command[0]));
        match status {
            Ok(st) => {
                outcome.exit_code = st.code();
                outcome.signal = st.signal();
            }
            Err(e) => {
                stop.store(true, Ordering::SeqCst);
                let _ = sampler.join();
                return Err(e);
            }
        }
    }
    stop.store(true, Ordering::SeqCst);
    let sources = sampler
        .join()
        .map_err(|_| anyhow::anyhow!("the sampler thread panicked"))??;
    // SAFETY: restoring the default dispositions.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
    if sources.present.is_empty() {
        eprintln!(
            "tracekit: warning: none of the sources {} exists under {}",
            opts.sampler.sources.join(","),
            opts.sampler.sys_root.display()
        );
    }
    for n in &sources.notes {
        eprintln!("tracekit: warning: {n}");
    }
    RecordingMeta {
        version: 1,
        command: opts.command.clone(),
        anchor_unix_ns,
        anchor_mono_ns,
        clock_pairs: vec![],
        exit_code: outcome.exit_code,
        signal: outcome.signal,
        filter: None,
    }
    .write(&opts.out)
    .with_context(|| format!("writing {META_FILE}"))?;
    Ok(outcome)
}

//! `tracekit convert INPUT --to FORMAT -o OUT`: any trace tracekit reads,
//! written in a format another tool reads (or tracekit's own Android pair).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Output formats.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    /// A Perfetto trace (opens in ui.perfetto.dev and Perfetto's trace processor).
    Perfetto,
    /// Chrome JSON trace events (chrome://tracing, Perfetto, Catapult).
    ChromeJson,
    /// speedscope's JSON (one evented profile per thread, exact enter/exit).
    Speedscope,
    /// The Firefox Profiler's processed format (profiler.firefox.com).
    Firefox,
    /// Collapsed stacks with µs weights, for flamegraph.pl, inferno and friends.
    Folded,
    /// Seed 004's human-readable object trace (`.otr`).
    Objtrace,
    /// Android method trace `OUT.trace` plus context log `OUT.clog` (when there is context).
    Android,
}

/// Which clock folded stacks are weighted by.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Clock {
    /// Wall-clock time.
    Wall,
    /// Thread-CPU time.
    Cpu,
}

/// Arguments of `tracekit convert`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Output format.
    #[arg(long, value_enum)]
    to: Format,
    /// Output file (android: the base name of OUT.trace and OUT.clog).
    #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
    out: PathBuf,
    /// folded: the clock that weighs each stack.
    #[arg(long, value_enum, default_value = "wall")]
    clock: Clock,
    /// folded: start every stack with its thread's name.
    #[arg(long)]
    thread_roots: bool,
}

/// Writes through a temporary file beside `path`, renamed into place only
/// when everything was written: a failure never leaves half a file.
fn write_file(path: &Path, write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tracekit-partial");
    let tmp = PathBuf::from(tmp);
    let shown = path
        .file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .into_owned();
    let _writing = crate::progress::writing(format!("writing {}", super::input::safe(&shown)), vec![tmp.clone()]);
    let result = (|| {
        let file = std::fs::File::create(&tmp).map_err(|e| super::input::cannot_write(path, &e))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        write(&mut w)?;
        w.flush().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Converts.
pub fn run(a: Args) -> anyhow::Result<()> {
    let loaded = super::input::open_loaded(&a.input)?;
    let s = &loaded.session;
    if let Format::Android = a.to {
        let base = tracekit_io::base_of(&a.out);
        for ext in ["trace", "clog"] {
            let mut file = base.clone().into_os_string();
            file.push(format!(".{ext}"));
            super::input::check_output(Path::new(&file), &loaded)?;
        }
        let writing = crate::progress::writing(
            format!("writing {}", base.display()),
            ["trace", "clog"]
                .iter()
                .map(|e| {
                    let mut f = base.clone().into_os_string();
                    f.push(format!(".{e}"));
                    PathBuf::from(f)
                })
                .collect(),
        );
        let written = tracekit_io::save(s, &base)?;
        drop(writing);
        for p in written {
            super::note(format_args!("wrote {}", p.display()));
        }
        return Ok(());
    }
    super::input::check_output(&a.out, &loaded)?;
    write_file(&a.out, |mut w| {
        let w = &mut w;
        match a.to {
            Format::Perfetto => tracekit_perfetto::write(s, w)?,
            Format::ChromeJson => tracekit_chrome::write(s, w)?,
            Format::Speedscope => tracekit_export::write_speedscope(s, w)?,
            Format::Firefox => tracekit_export::write_firefox(s, w)?,
            Format::Folded => {
                let clock = match a.clock {
                    Clock::Wall => tracekit_export::Clock::Wall,
                    Clock::Cpu => tracekit_export::Clock::ThreadCpu,
                };
                let opts = tracekit_export::FoldedOptions {
                    clock,
                    thread_roots: a.thread_roots,
                };
                tracekit_export::write_folded(s, &opts, w)?
            }
            Format::Objtrace => w.write_all(tracekit_objtrace::write_string(s).as_bytes())?,
            Format::Android => unreachable!("written above"),
        }
        Ok(())
    })?;
    super::note(format_args!("wrote {}", a.out.display()));
    Ok(())
}

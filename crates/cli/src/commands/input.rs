//! Shared helpers: opening inputs, choosing threads, formatting times.

use anyhow::{bail, Result};
use std::path::Path;
use tracekit_model::{Session, ThreadId};

/// Opens any input through the one door (`tracekit-io`) and prints the
/// loader's notes, the repairs it made and lost events to stderr.
pub fn open(name: &Path) -> Result<Session> {
    Ok(open_loaded(name)?.session)
}

/// [`open`], keeping what the door knows about the input (format, files read).
pub fn open_loaded(name: &Path) -> Result<tracekit_io::Loaded> {
    let loaded = tracekit_io::open(name)?;
    for n in &loaded.notes {
        eprintln!("tracekit: note: {n}");
    }
    for r in &loaded.session.repairs {
        eprintln!("tracekit: repaired {} ({}×): {}", r.code, r.count, r.detail);
    }
    if loaded.session.lost_events > 0 {
        eprintln!(
            "tracekit: warning: {} events were lost while recording (a buffer was full): counts and times below miss them",
            loaded.session.lost_events
        );
    }
    Ok(loaded)
}

/// Refuses an output that would overwrite one of the input's files, and
/// says on stderr when it replaces an existing file.
pub fn check_output(out: &Path, loaded: &tracekit_io::Loaded) -> Result<()> {
    if let Some(note) = tracekit_io::check_output(out, &loaded.inputs)? {
        eprintln!("tracekit: {note}");
    }
    Ok(())
}

/// Which threads and which time an analysis looks at (shared by `profile`
/// and `calltree`).
#[derive(Debug, clap::Args)]
pub struct Selection {
    /// Only these threads (tid or name; repeatable).
    #[arg(long = "thread")]
    pub threads: Vec<String>,
    /// Only the time where this context condition holds, e.g. "Screen orientation == 1".
    #[arg(long)]
    pub when: Option<String>,
}

impl Selection {
    /// Resolves the selection against a session.
    pub fn options(&self, s: &Session) -> Result<tracekit_analysis::ProfileOptions> {
        use tracekit_analysis::{problems::horizon, Condition};
        let threads = threads(s, &self.threads)?;
        let window = match &self.when {
            Some(w) => Some(Condition::parse(w)?.intervals(s, horizon(s))?),
            None => None,
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
            .filter(|(_, t)| t.name == *w || w.parse::<u32>().is_ok_and(|tid| tid == t.tid))
            .map(|(i, _)| ThreadId(i as u32))
            .collect();
        if found.is_empty() {
            let names: Vec<String> = session
                .threads
                .iter()
                .map(|t| format!("{} ({})", t.label(), t.tid))
                .collect();
            bail!("no thread {w:?}; threads are: {}", names.join(", "));
        }
        out.extend(found);
    }
    Ok(Some(out))
}

/// ns → µs as a JSON-friendly number.
pub fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// ns → milliseconds with three decimals.
pub fn ms(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// Prints a JSON value on stdout.
pub fn print_json(v: &serde_json::Value) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

//! `tracekit replay INPUT`: the indented call listing of any trace.

use super::input::{self, ThreadFilter, TimeRange};
use std::io::Write;
use std::path::PathBuf;
use tracekit_analysis::listing::{
    for_each_listed, ListedEvent, ListingFilter, LongCalls, StreamedListing, TextRenderer,
};
use tracekit_model::{CallEvent, ThreadId};

/// The first pass over a recording's calls (of `--from-us`/`--to-us` when given).
struct FirstPass(LongCalls, Option<(u64, u64)>);

impl tracekit_io::CallStream for FirstPass {
    fn time_range_ns(&self) -> Option<(u64, u64)> {
        self.1
    }
    fn begin_thread(&mut self, t: ThreadId, _: u64) {
        self.0.begin_thread(t);
    }
    fn call(&mut self, e: CallEvent) {
        self.0.event(&e);
    }
    fn end_thread(&mut self, _: ThreadId) {}
}

/// The second pass, listing as it reads.
struct SecondPass<'s, F: FnMut(ListedEvent)>(StreamedListing<'s, F>, Option<(u64, u64)>);

impl<F: FnMut(ListedEvent)> tracekit_io::CallStream for SecondPass<'_, F> {
    fn time_range_ns(&self) -> Option<(u64, u64)> {
        self.1
    }
    fn begin_thread(&mut self, t: ThreadId, _: u64) {
        self.0.begin_thread(t);
    }
    fn call(&mut self, e: CallEvent) {
        self.0.event(&e);
    }
    fn end_thread(&mut self, _: ThreadId) {
        self.0.end_thread();
    }
}

/// Arguments of `tracekit replay`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Print `{"events": [...], "lost_events": N}` as JSON.
    #[arg(long)]
    json: bool,
    /// Print per-thread event and lost-event counts only (fast on huge recordings).
    #[arg(long, conflicts_with = "json")]
    stats: bool,
    #[command(flatten)]
    threads: ThreadFilter,
    /// Only events nested less deeply than this.
    #[arg(long)]
    depth: Option<usize>,
    /// Only these functions (glob) and what they call (repeatable).
    #[arg(short = 'F', long = "function")]
    functions: Vec<String>,
    /// Only the events of this time window (a recording is read only up to its end).
    #[command(flatten)]
    range: TimeRange,
}

/// Prints the listing.
pub fn run(a: Args) -> anyhow::Result<()> {
    if a.stats {
        if !tracekit_recording::is_recording_dir(&a.input) {
            anyhow::bail!("{}: --stats reads recording directories only", a.input.display());
        }
        let stats = tracekit_recording::recording_stats(&a.input)?;
        println!("{:>8} {:>8} {:>14} {:>14}", "pid", "tid", "events", "lost");
        for t in &stats {
            println!(
                "{:>8} {:>8} {:>14} {:>14}",
                t.header.pid, t.header.tid, t.events, t.header.lost
            );
        }
        let (ev, lost): (u64, u64) = stats.iter().fold((0, 0), |(e, l), t| (e + t.events, l + t.header.lost));
        println!(
            "total {ev} events recorded, {lost} lost (counted), {} threads",
            stats.len()
        );
        return Ok(());
    }
    let time_ns = a.range.read_ns()?;
    let filter_of = |s: &tracekit_model::Session| -> anyhow::Result<ListingFilter> {
        let tids = match a.threads.resolve(s)? {
            Some(ids) => ids.iter().map(|&id| s.thread(id).tid).collect(),
            None => Vec::new(),
        };
        Ok(ListingFilter {
            tids,
            max_depth: a.depth,
            functions: a.functions.clone(),
            time_ns,
        })
    };
    // Lines are printed as they are listed, never all held.
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut failed: Option<std::io::Error> = None;
    let mut put = |text: &str| {
        if failed.is_none() {
            if let Err(e) = w.write_all(text.as_bytes()) {
                failed = Some(e);
            }
        }
    };
    // A recording is read twice and never held: the first pass keeps the
    // durations of the few long calls, the second lists as it reads.
    let mut first = FirstPass(LongCalls::default(), time_ns);
    let mut changed = false;
    if let Some(loaded) = input::open_streaming(&a.input, &mut first)? {
        let s = loaded.session;
        let filter = filter_of(&s)?;
        if a.json {
            put("{\"events\":[");
            let mut first_line = true;
            let mut second = SecondPass(
                StreamedListing::new(&s, &filter, first.0, |e| {
                    if !first_line {
                        put(",");
                    }
                    first_line = false;
                    put(&serde_json::to_string(&e).unwrap_or_default());
                }),
                time_ns,
            );
            tracekit_io::open_streaming(&a.input, &mut second)?;
            changed = second.0.changed();
            drop(second);
            put(&format!("],\"lost_events\":{}}}\n", s.lost_events));
        } else {
            if let Some(l) = input::lost_line(&s) {
                put(&format!("# {l}\n"));
            }
            let mut r = TextRenderer::new(|line: &str| {
                put(&tracekit_safeio::terminal(line));
                put("\n");
            });
            let mut second = SecondPass(StreamedListing::new(&s, &filter, first.0, |e| r.push(e)), time_ns);
            tracekit_io::open_streaming(&a.input, &mut second)?;
            changed = second.0.changed();
            drop(second);
            r.finish();
        }
    } else {
        let s = input::open(&a.input)?;
        let filter = filter_of(&s)?;
        if a.json {
            // The shape of `ListingReport`: {"events": [...], "lost_events": N}.
            put("{\"events\":[");
            let mut first_line = true;
            for_each_listed(&s, &filter, |e| {
                if !first_line {
                    put(",");
                }
                first_line = false;
                put(&serde_json::to_string(&e).unwrap_or_default());
            });
            put(&format!("],\"lost_events\":{}}}\n", s.lost_events));
        } else {
            if let Some(l) = input::lost_line(&s) {
                put(&format!("# {l}\n"));
            }
            let mut r = TextRenderer::new(|line: &str| {
                put(&tracekit_safeio::terminal(line));
                put("\n");
            });
            for_each_listed(&s, &filter, |e| r.push(e));
            r.finish();
        }
    }
    if changed {
        super::warning(format_args!(
            "{}: the recording changed while it was read (still being written?): the listing may stop early",
            a.input.display()
        ));
    }
    if let Some(e) = failed {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    let _ = w.flush();
    Ok(())
}

//! Choosing a time window of a long recording from its block headers alone,
//! without decoding an event: the stretch from the start that holds at most
//! a given number of events (what a viewer can hold in memory).

use crate::blocks::{block_stats_and_ends, BlockEnds};
use crate::layout::{read_layout_with, thread_timeline};
use crate::thread_file::thread_stats;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The window [`first_events_window`] chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstEvents {
    /// `(start, end)` in ns on the session's timeline; the start is 0.
    pub range_ns: (u64, u64),
    /// Events of the blocks that end inside the window (every thread).
    pub events: u64,
    /// Events of the whole recording (every thread).
    pub total: u64,
}

/// The window from the start of the recording in `dir` that holds about
/// `max_events` events (at most, to a block of 8192 events), or `None` when
/// the whole recording holds no more than that. Only block headers are
/// read. A recording with thread files written without `tracekit record`
/// (not made of blocks) gives `None`: it is taken whole.
pub fn first_events_window(dir: &Path, max_events: u64) -> anyhow::Result<Option<FirstEvents>> {
    // Each file's block headers are read once: for its counts and its block ends.
    let mut ends_of: HashMap<PathBuf, BlockEnds> = HashMap::new();
    let mut all_blocks = true;
    let layout = read_layout_with(dir, |path| match block_stats_and_ends(path)? {
        Some((st, ends)) => {
            ends_of.insert(path.to_path_buf(), ends);
            Ok(st)
        }
        None => {
            all_blocks = false;
            Ok(thread_stats(path)?)
        }
    })?;
    let total: u64 = layout.stats.iter().map(|(st, _)| st.events).sum();
    if total <= max_events || !all_blocks {
        return Ok(None);
    }
    // (end of the block in ns, its events), every thread's blocks together.
    let mut ends: Vec<(u64, u32)> = Vec::new();
    for (st, path) in &layout.stats {
        let blocks = ends_of.remove(path).unwrap_or_default();
        let (conv, anchor) = thread_timeline(&st.header, layout.tsc, layout.meta.anchor_mono_ns);
        ends.extend(
            blocks
                .into_iter()
                .map(|(raw, n)| (conv.to_mono(raw).saturating_sub(anchor), n)),
        );
    }
    Ok(Some(first_events(ends, max_events, total)))
}

/// The earliest block ends that together hold at most `max_events` events
/// (always the first one).
fn first_events(mut ends: Vec<(u64, u32)>, max_events: u64, total: u64) -> FirstEvents {
    ends.sort_unstable();
    let (mut events, mut end_ns) = (0u64, 0u64);
    for (i, &(at, n)) in ends.iter().enumerate() {
        if i > 0 && events + n as u64 > max_events {
            break;
        }
        events += n as u64;
        end_ns = at;
    }
    FirstEvents {
        range_ns: (0, end_ns),
        events,
        total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_ends_at_the_last_block_that_keeps_within_the_budget() {
        // Two threads' blocks, interleaved in time.
        let ends = vec![(300, 10), (100, 10), (200, 10), (250, 10), (400, 10)];
        let w = first_events(ends.clone(), 35, 50);
        assert_eq!(w.range_ns, (0, 250));
        assert_eq!(w.events, 30);
        assert_eq!(w.total, 50);
        assert_eq!(first_events(ends.clone(), 40, 50).range_ns, (0, 300));
        // A budget smaller than a block still shows the first one.
        assert_eq!(
            first_events(ends, 3, 50),
            FirstEvents {
                range_ns: (0, 100),
                events: 10,
                total: 50
            }
        );
    }
}

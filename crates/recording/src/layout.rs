//! What a recording directory holds besides its events, read from its
//! headers and small files: the metadata, each thread file's counts, the
//! process maps and the converter from raw ticks to timeline ns.

use crate::meta::{RecordingMeta, TickConverter};
use crate::symbolize::MapsHistory;
use crate::thread_file::{thread_stats, ThreadHeader, ThreadStats};
use anyhow::Context as _;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tracekit_rt_format::names::{self, RecordingFile};
use tracekit_rt_format::{CLOCK_MONOTONIC_NS, CLOCK_ORDER};

/// What a recording directory holds besides its events: the metadata,
/// each thread file's counts (threads in order of their first event), the
/// address maps and the converter from raw ticks to monotonic ns.
pub(crate) struct Layout {
    pub meta: RecordingMeta,
    pub stats: Vec<(ThreadStats, PathBuf)>,
    pub maps: HashMap<(u32, u64), MapsHistory>,
    pub tsc: TickConverter,
}

/// Reads the [`Layout`] of the recording in `dir` (headers and small files only).
pub(crate) fn read_layout(dir: &Path) -> anyhow::Result<Layout> {
    read_layout_with(dir, |path| Ok(thread_stats(path)?))
}

/// [`read_layout`] with each thread file's counts from `stats_of` (which
/// may note more of the file as it reads).
pub(crate) fn read_layout_with(
    dir: &Path,
    mut stats_of: impl FnMut(&Path) -> anyhow::Result<ThreadStats>,
) -> anyhow::Result<Layout> {
    let meta = if dir.join(crate::meta::META_FILE).exists() {
        Some(RecordingMeta::read(dir)?)
    } else {
        None
    };
    let mut stats: Vec<(ThreadStats, PathBuf)> = Vec::new();
    let mut extra_pairs: Vec<(u64, u64)> = Vec::new();
    let mut maps: HashMap<(u32, u64), MapsHistory> = HashMap::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot list", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in &entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let kind = names::parse(name);
        if let Some(RecordingFile::Thread { .. }) = kind {
            stats.push((stats_of(path)?, path.clone()));
        } else if let Some(RecordingFile::Clock { .. }) = kind {
            let text = tracekit_safeio::read_text(path)?;
            for (i, line) in text.lines().enumerate() {
                let mut f = line.split_whitespace().map(str::parse::<u64>);
                match (f.next(), f.next()) {
                    (Some(Ok(t)), Some(Ok(m))) => extra_pairs.push((t, m)),
                    _ => anyhow::bail!("{}: line {}: expected `<clock> <monotonic ns>`", path.display(), i + 1),
                }
            }
        } else if let Some(RecordingFile::Maps { pid, image }) = kind {
            let key = (pid, image);
            let text = tracekit_safeio::read_text(path)?;
            let (m, bad) = MapsHistory::parse(&text);
            if let Some((line, _)) = bad.first() {
                anyhow::bail!("{}: line {line}: not a /proc/<pid>/maps line", path.display());
            }
            maps.insert(key, m);
        }
    }
    // Threads in order of their first event, processes in order of appearance.
    stats.sort_by_key(|(t, _)| (t.first_clock.unwrap_or(u64::MAX), t.header.pid, t.header.tid));
    let meta = match meta {
        Some(m) => m,
        None => {
            let first = stats.iter().map(|(t, _)| &t.header).min_by_key(|h| h.created.1);
            let first = first.ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: no recording.json and no thread files: not a recording",
                    dir.display()
                )
            })?;
            RecordingMeta {
                version: 1,
                command: vec![],
                anchor_unix_ns: first.created_unix_ns as i64,
                anchor_mono_ns: first.created.1,
                clock_pairs: vec![],
                exit_code: None,
                signal: None,
                filter: None,
            }
        }
    };
    let mut pairs = meta.clock_pairs.clone();
    pairs.extend(extra_pairs);
    pairs.extend(stats.iter().map(|(t, _)| t.header.created));
    let tsc = TickConverter::from_pairs(&pairs).unwrap_or(TickConverter::IDENTITY);
    Ok(Layout { meta, stats, maps, tsc })
}

/// How a thread's raw clock values become ns on the session's timeline:
/// `converter.to_mono(raw) - anchor` (saturating).
pub(crate) fn thread_timeline(h: &ThreadHeader, tsc: TickConverter, anchor_mono: u64) -> (TickConverter, u64) {
    match h.clock {
        CLOCK_ORDER => (TickConverter::IDENTITY, 0),
        CLOCK_MONOTONIC_NS => (TickConverter::IDENTITY, anchor_mono),
        _ => (tsc, anchor_mono),
    }
}

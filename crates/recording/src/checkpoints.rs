//! Checkpoints of the skim (see `skim.rs`), kept beside a thread file so
//! that a later windowed read starts from the last one before its window
//! instead of skimming every block from the file's start.
//!
//! Skimming follows the open frames of every block before a window; on a
//! long recording a window near its end spends most of its time there.
//! The first windowed read of a thread file notes, every
//! [`checkpoint_events`] events it skims, the frames open after the block
//! it just skimmed, and saves them in `<thread file>.frames`
//! (`names::checkpoints_file_name`; JSON, written
//! to a temporary file and renamed; never required, and never written over
//! anything but an earlier index). A later read resumes at the last
//! checkpoint that ends before its window, with exactly the state skimming
//! from the start would have had there, so its output is the same.
//!
//! An index is used only when it names the thread file's current length
//! and modification time and its checkpoint lands on a block header; any
//! other index (another recording's, cut, edited) is ignored and made again.

use crate::skim::Skimmed;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format version of the index file.
const VERSION: u32 = 1;
/// Largest index file read (an index holds functions and stacks, not events).
const MAX_INDEX_BYTES: u64 = 64 << 20;
/// Events skimmed between two checkpoints by default.
const CHECKPOINT_EVENTS: u64 = 1 << 21;

/// Events skimmed between two checkpoints: [`CHECKPOINT_EVENTS`], or
/// `TRACEKIT_CHECKPOINT_EVENTS` (for tests on small recordings).
pub(crate) fn checkpoint_events() -> u64 {
    std::env::var("TRACEKIT_CHECKPOINT_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(CHECKPOINT_EVENTS)
}

/// The skim's state after one block: what [`Skimmed`] holds there, with
/// the functions first seen given as a count of the index's list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    /// File offset of the first block after it.
    pub offset: u64,
    /// Raw time of the last event before it.
    pub last_raw: u64,
    /// Addresses of the open frames, outermost first.
    pub stack: Vec<u64>,
    /// `setjmp` buffers and their depths, the last one seen of each buffer.
    pub setjmps: Vec<(u64, usize)>,
    /// How many of [`Checkpoints::first_seen`] were seen before it.
    pub seen: usize,
}

/// A thread file's checkpoints, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Checkpoints {
    version: u32,
    /// The thread file's length when the index was made.
    file_len: u64,
    /// The thread file's modification time (ns since the epoch) then.
    file_mtime_ns: u64,
    /// Each address first seen, in order, with the raw time it was seen at.
    pub first_seen: Vec<(u64, u64)>,
    /// The checkpoints, by increasing offset.
    pub points: Vec<Checkpoint>,
}

/// The index file of `thread_file`.
pub(crate) fn index_path(thread_file: &Path) -> PathBuf {
    let mut name = thread_file.file_name().unwrap_or_default().to_os_string();
    name.push(".frames");
    thread_file.with_file_name(name)
}

/// (length, modification time in ns) of the file at `path`.
fn stamp(path: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok()?;
    let t = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some((m.len(), u64::try_from(t.as_nanos()).ok()?))
}

impl Checkpoints {
    /// An empty index for `thread_file` as it is now (`None`: no stamp).
    pub fn new_for(thread_file: &Path) -> Option<Checkpoints> {
        let (file_len, file_mtime_ns) = stamp(thread_file)?;
        Some(Checkpoints {
            version: VERSION,
            file_len,
            file_mtime_ns,
            ..Checkpoints::default()
        })
    }

    /// The index saved beside `thread_file`, when there is one made for
    /// the file as it is now and it holds together.
    pub fn load(thread_file: &Path) -> Option<Checkpoints> {
        let path = index_path(thread_file);
        if std::fs::metadata(&path).ok()?.len() > MAX_INDEX_BYTES {
            return None;
        }
        let c: Checkpoints = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
        let fits = c.version == VERSION
            && stamp(thread_file) == Some((c.file_len, c.file_mtime_ns))
            && c.points
                .windows(2)
                .all(|w| w[0].offset < w[1].offset && w[0].seen <= w[1].seen)
            && c.points
                .iter()
                .all(|p| p.seen <= c.first_seen.len() && p.offset < c.file_len);
        fits.then_some(c)
    }

    /// The last checkpoint whose time `before(last_raw)` accepts.
    pub fn last_before(&self, before: impl Fn(u64) -> bool) -> Option<&Checkpoint> {
        self.points.iter().take_while(|p| before(p.last_raw)).last()
    }

    /// Drops every checkpoint (the index stays stamped for its file).
    pub fn clear(&mut self) {
        self.first_seen.clear();
        self.points.clear();
    }

    /// The skim's state at `p`.
    pub fn state_at(&self, p: &Checkpoint) -> Skimmed {
        Skimmed {
            stack: p.stack.clone(),
            first_seen: self.first_seen[..p.seen].to_vec(),
            setjmps: p.setjmps.clone(),
            last_raw: p.last_raw,
        }
    }

    /// Adds a checkpoint at file offset `offset` with the skim's state
    /// `s`, past every checkpoint it holds.
    pub fn push(&mut self, offset: u64, s: &Skimmed) {
        if self.points.last().is_some_and(|p| p.offset >= offset) || s.first_seen.len() < self.first_seen.len() {
            return;
        }
        self.first_seen
            .extend_from_slice(&s.first_seen[self.first_seen.len()..]);
        let mut setjmps: Vec<(u64, usize)> = Vec::new();
        for &(env, depth) in &s.setjmps {
            match setjmps.iter_mut().find(|(e, _)| *e == env) {
                Some(slot) => slot.1 = depth,
                None => setjmps.push((env, depth)),
            }
        }
        self.points.push(Checkpoint {
            offset,
            last_raw: s.last_raw,
            stack: s.stack.clone(),
            setjmps,
            seen: s.first_seen.len(),
        });
    }

    /// Saves the index beside `thread_file` (a temporary file renamed over
    /// the old index). An index is a convenience: when the directory cannot
    /// be written, nothing is saved and nothing fails.
    pub fn save(&self, thread_file: &Path) {
        let path = index_path(thread_file);
        let mut tmp = path.clone().into_os_string();
        tmp.push(format!(".{}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        let Ok(bytes) = serde_json::to_vec(self) else { return };
        if std::fs::write(&tmp, bytes).is_err() || std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skimmed(stack: &[u64], seen: &[u64], setjmps: &[(u64, usize)], last_raw: u64) -> Skimmed {
        Skimmed {
            stack: stack.to_vec(),
            first_seen: seen.iter().map(|&a| (a, a * 10)).collect(),
            setjmps: setjmps.to_vec(),
            last_raw,
        }
    }

    #[test]
    fn an_index_saved_is_loaded_back_for_the_same_file_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("thread-1-2-3.tkt");
        std::fs::write(&file, vec![0u8; 4096]).unwrap();
        let mut c = Checkpoints::new_for(&file).unwrap();
        c.push(100, &skimmed(&[1, 2], &[1, 2], &[(7, 1), (8, 2), (7, 2)], 50));
        c.push(90, &skimmed(&[1], &[1, 2], &[], 60)); // not past the last: ignored
        c.push(200, &skimmed(&[1, 3], &[1, 2, 3], &[], 70));
        assert_eq!(c.points.len(), 2);
        assert_eq!(c.points[0].setjmps, vec![(7, 2), (8, 2)]);
        c.save(&file);
        let back = Checkpoints::load(&file).unwrap();
        assert_eq!(back, c);
        let p = back.last_before(|raw| raw < 70).unwrap();
        assert_eq!(back.state_at(p), skimmed(&[1, 2], &[1, 2], &[(7, 2), (8, 2)], 50));
        assert!(back.last_before(|raw| raw < 50).is_none());
        // The file changed: the index is not for it any more.
        std::fs::write(&file, vec![0u8; 8192]).unwrap();
        assert!(Checkpoints::load(&file).is_none());
        // Nor is an index that does not parse.
        std::fs::write(index_path(&file), b"{\"version\": 1").unwrap();
        assert!(Checkpoints::load(&file).is_none());
        use tracekit_rt_format::names;
        assert_eq!(
            index_path(&file).file_name().unwrap().to_str(),
            Some(names::checkpoints_file_name(1, 2, 3).as_str())
        );
        assert_eq!(
            names::parse("thread-1-2-3.tkt.frames"),
            Some(names::RecordingFile::Checkpoints {
                pid: 1,
                tid: 2,
                image: 3
            })
        );
    }
}

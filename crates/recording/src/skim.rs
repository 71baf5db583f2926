//! Skimming the blocks of a thread file that end before a time window:
//! only the open frames are followed, by raw address, with no time
//! conversion, symbolization or balancing. A block is skimmed only when
//! that gives exactly what the full reading would: every event in it is a
//! plain enter, the exit of the innermost open frame, of an address whose
//! function does not depend on the time, or a `setjmp` (whose depth the
//! balancer is then told). At the first block that is not (another
//! extended event such as a `longjmp`, a marker or a fork; an exit
//! below the top; a block that reaches the window) skimming stops for the
//! rest of the file, the open frames are handed to the full reading, and
//! that block and every later one are read in full.
//!
//! Every so many events skimmed, the state is noted as a checkpoint (see
//! `checkpoints.rs`), and a skim may start from one.
//!
//! First, though, the blocks are leapt over (see `leap.rs`): only the few
//! that entered frames still open, and those with extended events, are
//! decoded. The leap stops where the skim would refuse a block, so the skim
//! follows events one by one only when the leap cannot be made (a block
//! that disagrees with its depth summary).

use crate::blocks::{for_each_block, open_thread_file, read_payload};
use crate::checkpoints::{checkpoint_events, Checkpoints};
use crate::follow::{follow_block, OpenFrames};
use crate::leap::Leap;
use crate::symbolize::MapsHistory;
use crate::thread_file::ThreadFileError;
use rustc_hash::FxHashSet;
use std::path::Path;
use tracekit_rt_format::block::{BlockHeader, BLOCK_HEADER, BLOCK_VERSION};

/// What the skimmed blocks left: the frames open after them and the
/// functions first seen in them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Skimmed {
    /// Addresses of the open frames, outermost first.
    pub stack: Vec<u64>,
    /// Each address first seen in the skimmed blocks, in the order seen,
    /// with the raw time it was seen at.
    pub first_seen: Vec<(u64, u64)>,
    /// Each `setjmp` seen (buffer address, depth of the open frames), in order.
    pub setjmps: Vec<(u64, usize)>,
    /// Raw time of the last skimmed event (0: none).
    pub last_raw: u64,
}

/// The skimming state of one thread file.
pub(crate) struct Skim<'a> {
    maps: &'a MapsHistory,
    /// Raw clock → ns on the session's timeline.
    to_ns: &'a dyn Fn(u64) -> u64,
    /// The window's start (ns): blocks ending before it may be skimmed.
    start_ns: u64,
    on: bool,
    done: Skimmed,
    seen: FxHashSet<u64>,
    /// Direct-mapped cache in front of `seen` (addresses, 0: empty).
    recent: Vec<u64>,
    /// Checkpoints, when they are kept.
    index: Option<Checkpoints>,
    /// Whether checkpoints were added to `index`.
    grew: bool,
    /// Events skimmed since the last checkpoint, and how many make one.
    since: u64,
    stride: u64,
}

const RECENT: usize = 4096;

impl<'a> Skim<'a> {
    /// A skimmer for blocks that end before `start_ns`; `on` false skims nothing.
    pub fn new(maps: &'a MapsHistory, to_ns: &'a dyn Fn(u64) -> u64, start_ns: u64, on: bool) -> Skim<'a> {
        Skim {
            maps,
            to_ns,
            start_ns,
            on,
            done: Skimmed::default(),
            seen: FxHashSet::default(),
            recent: vec![0; RECENT],
            index: None,
            grew: false,
            since: 0,
            stride: checkpoint_events(),
        }
    }

    /// Keeps checkpoints in `index`, and starts from its last one before
    /// the window when there is one: returns the file offset of the first
    /// block after it (`None`: skim from the first block). An index whose
    /// checkpoint is not at a block (`at_block` says) is started afresh.
    pub fn resume(&mut self, mut index: Checkpoints, at_block: impl Fn(u64) -> bool) -> Option<u64> {
        let (start, to_ns) = (self.start_ns, self.to_ns);
        let point = index.last_before(|raw| to_ns(raw) < start).filter(|_| self.on);
        let at = match point {
            Some(p) if at_block(p.offset) => {
                self.done = index.state_at(p);
                self.seen = self.done.first_seen.iter().map(|&(a, _)| a).collect();
                Some(p.offset)
            }
            Some(_) => {
                index.clear();
                None
            }
            None => None,
        };
        self.index = Some(index);
        at
    }

    /// The checkpoints, when some were added since [`Skim::resume`].
    pub fn grown_index(&mut self) -> Option<Checkpoints> {
        if self.grew {
            self.index.take()
        } else {
            None
        }
    }

    /// Skims, or leaps over, the blocks of the thread file at `path` that
    /// end before the window, from file offset `from` (a block's, as
    /// [`Skim::resume`] gives) or from the first block; returns the offset
    /// of the first block to read in full (`None`: the first). Skimming is
    /// then over: [`Skim::take`] gives what it left.
    pub fn run(&mut self, path: &Path, from: Option<u64>) -> Result<Option<u64>, ThreadFileError> {
        if !self.on {
            return Ok(from);
        }
        let (file, header, first) = open_thread_file(path)?;
        if header.version != BLOCK_VERSION {
            self.on = false;
            return Ok(from);
        }
        let start = from.unwrap_or(first).max(first);
        // The blocks that end before the window are leapt over, from their
        // headers, as far as they can be; payloads are read (positioned
        // reads of the same handle) as the walk goes on.
        let read = |at: u64| read_payload(&file, at);
        let mut leap = Leap::new(&self.done, self.maps);
        let (to_ns, start_ns) = (self.to_ns, self.start_ns);
        let mut next = start;
        for_each_block(&file, start, false, |at, h, _| {
            let taken = h.events > 0 && to_ns(h.last_ts) < start_ns && leap.take(at, h, read);
            if taken {
                next = at + (BLOCK_HEADER + h.payload_len as usize) as u64;
            }
            Ok(taken)
        })
        .map_err(|e| e.of(path))?;
        match leap.finish(read) {
            Some(after) => {
                if next > start {
                    self.seen = after.first_seen.iter().map(|&(a, _)| a).collect();
                    self.done = after;
                    // A later window's read starts from here.
                    if let Some(index) = &mut self.index {
                        index.push(next, &self.done);
                        self.grew = true;
                    }
                }
                // The leap stops only where the skim would refuse too (at
                // the window, at worst): nothing is left to skim.
            }
            // A block disagreed with its summary: all are skimmed, up to
            // the window or the first block refused.
            None => next = self.skim_blocks(path, &file, start)?,
        }
        self.on = false;
        Ok(Some(next))
    }

    /// Skims the blocks from file offset `next` until one is refused (one
    /// that reaches the window is); returns the offset of the first block
    /// not skimmed.
    fn skim_blocks(&mut self, path: &Path, file: &std::fs::File, mut next: u64) -> Result<u64, ThreadFileError> {
        for_each_block(file, next, true, |at, h, payload| {
            let taken = self.block(at, h, payload);
            if taken {
                next = at + (BLOCK_HEADER + payload.len()) as u64;
            }
            Ok(taken)
        })
        .map_err(|e| e.of(path))?;
        Ok(next)
    }

    /// Skims the block when it can (see the module docs); returns whether
    /// it did. Once it refuses a block it refuses every later one.
    /// `at` is the block's file offset.
    pub fn block(&mut self, at: u64, h: &BlockHeader, payload: &[u8]) -> bool {
        if !self.on {
            return false;
        }
        if h.events == 0 || (self.to_ns)(h.last_ts) >= self.start_ns || !self.follow(h, payload) {
            self.on = false;
            return false;
        }
        self.done.last_raw = h.last_ts;
        self.since += u64::from(h.events);
        if self.since >= self.stride {
            if let Some(index) = &mut self.index {
                index.push(at + (BLOCK_HEADER + payload.len()) as u64, &self.done);
                self.grew = true;
            }
            self.since = 0;
        }
        true
    }

    /// Follows the block's events; false (and nothing changed) when one
    /// of them cannot be skimmed.
    fn follow(&mut self, h: &BlockHeader, payload: &[u8]) -> bool {
        let (saved, seen_before, setjmps_before) = (
            self.done.stack.clone(),
            self.done.first_seen.len(),
            self.done.setjmps.len(),
        );
        let ok = follow_block(h, payload, self);
        if !ok {
            // Back to the state before the block.
            self.done.stack = saved;
            self.done.setjmps.truncate(setjmps_before);
            for (a, _) in self.done.first_seen.drain(seen_before..) {
                self.seen.remove(&a);
                self.recent[slot(a)] = 0;
            }
        }
        ok
    }

    /// Notes address `a`, seen at `raw`; false when its function depends
    /// on the time (a mapping that changed over the run).
    #[inline]
    fn note(&mut self, a: u64, raw: u64) -> bool {
        let s = slot(a);
        if self.recent[s] == a {
            return true;
        }
        if !self.seen.contains(&a) {
            if self.maps.depends_on_time(a, raw) {
                return false;
            }
            self.seen.insert(a);
            self.done.first_seen.push((a, raw));
        }
        self.recent[s] = a;
        true
    }

    /// What the skimmed blocks left (empty when none was skimmed).
    pub fn take(&mut self) -> Skimmed {
        std::mem::take(&mut self.done)
    }
}

impl OpenFrames for Skim<'_> {
    fn enter(&mut self, a: u64, raw: u64) -> bool {
        if !self.note(a, raw) {
            return false;
        }
        self.done.stack.push(a);
        true
    }

    fn exit(&mut self, a: u64) -> bool {
        if self.done.stack.last() != Some(&a) {
            return false;
        }
        self.done.stack.pop();
        true
    }

    fn setjmp(&mut self, buf: u64) {
        // What the balancer notes of a `setjmp`: the depth.
        self.done.setjmps.push((buf, self.done.stack.len()));
    }
}

fn slot(a: u64) -> usize {
    ((a >> 2) ^ (a >> 14)) as usize & (RECENT - 1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use tracekit_rt_format::block::BlockEncoder;
    use tracekit_rt_format::ExtKind;

    /// The body of an extended event of kind `sub` on buffer 0xbeef.
    pub(crate) fn ext_body(sub: ExtKind) -> Vec<u8> {
        let mut body = vec![0u8; tracekit_rt_format::ext_body_len(&[])];
        let n = tracekit_rt_format::encode_ext_raw(&mut body, sub, 0, 0xbeef, 0, &[]).unwrap();
        body.truncate(n);
        body
    }

    /// A thread file of a well-nested run at times 10, 11, …: each of
    /// `ops` enters one of a few functions (0..=3), leaves the innermost
    /// one (4..=6, when one is open) or notes a `setjmp` (7); blocks end
    /// after as many events as `cuts` gives in turn.
    fn random_run(ops: &[u8], cuts: &[usize]) -> Vec<u8> {
        let mut file = crate::blocks::tests::v2_header();
        let mut enc = BlockEncoder::new();
        let (mut stack, mut cut) = (Vec::new(), cuts.iter().cycle());
        let mut left = *cut.next().unwrap();
        for (i, &op) in ops.iter().enumerate() {
            let ts = 10 + i as u64;
            match op {
                0..=3 => {
                    let a = 0x100 + u64::from(op) * 0x10;
                    enc.push_call(ts, false, a);
                    stack.push(a);
                }
                4..=6 => match stack.pop() {
                    Some(a) => enc.push_call(ts, true, a),
                    None => continue,
                },
                _ => enc.push_ext(ts, &ext_body(ExtKind::Setjmp)),
            }
            left -= 1;
            if left == 0 || enc.is_full() {
                enc.finish_into(&mut file);
                left = *cut.next().unwrap();
            }
        }
        enc.finish_into(&mut file);
        file
    }

    /// What skimming every block from the first leaves, block by block
    /// with no leap, and where it stopped.
    fn skimmed_only(path: &Path, start_ns: u64) -> (Skimmed, u64) {
        let (maps, to_ns) = (MapsHistory::default(), |raw: u64| raw);
        let mut s = Skim::new(&maps, &to_ns, start_ns, true);
        let (file, _, first) = open_thread_file(path).unwrap();
        let mut next = first;
        let _ = for_each_block(&file, first, true, |at, h, p| {
            let taken = s.block(at, h, p);
            if taken {
                next = at + (BLOCK_HEADER + p.len()) as u64;
            }
            Ok(taken)
        });
        (s.take(), next)
    }

    proptest! {
        #[test]
        fn a_leap_leaves_what_skimming_every_block_does(
            ops in proptest::collection::vec(prop_oneof![40 => 0u8..7, 1 => Just(7u8)], 1..3000),
            cuts in proptest::collection::vec(1usize..200, 1..8),
            at in 0.0f64..1.2,
        ) {
            let dir = std::env::temp_dir().join(format!("tracekit-leap-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("t.tkt");
            std::fs::write(&path, random_run(&ops, &cuts)).unwrap();
            let start_ns = 10 + (ops.len() as f64 * at) as u64;
            let (want, want_next) = skimmed_only(&path, start_ns);
            let (maps, to_ns) = (MapsHistory::default(), |raw: u64| raw);
            let mut s = Skim::new(&maps, &to_ns, start_ns, true);
            let next = s.run(&path, None).unwrap();
            let got = s.take();
            prop_assert_eq!(next, Some(want_next));
            prop_assert_eq!(&got.stack, &want.stack);
            prop_assert_eq!(&got.setjmps, &want.setjmps);
            prop_assert_eq!(got.last_raw, want.last_raw);
            // The leap sees fewer functions, but every open one.
            for a in &got.stack {
                prop_assert!(got.first_seen.iter().any(|(f, _)| f == a));
            }
            for (f, _) in &got.first_seen {
                prop_assert!(want.first_seen.iter().any(|(w, _)| w == f));
            }
            let _ = std::fs::remove_dir_all(&dir);
        }

        #[test]
        fn a_damaged_file_never_panics_a_leap(
            ops in proptest::collection::vec(0u8..8, 1..600),
            pos in 0usize..4000,
            val: u8,
        ) {
            let dir = std::env::temp_dir().join(format!("tracekit-leap-bad-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("t.tkt");
            let mut file = random_run(&ops, &[7, 50]);
            let at = tracekit_rt_format::HEADER_SIZE + pos % (file.len() - tracekit_rt_format::HEADER_SIZE).max(1);
            if at < file.len() {
                file[at] = val;
            }
            std::fs::write(&path, &file).unwrap();
            let (maps, to_ns) = (MapsHistory::default(), |raw: u64| raw);
            let mut s = Skim::new(&maps, &to_ns, u64::MAX, true);
            let _ = s.run(&path, None);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    fn block(events: &[(u64, Option<bool>, u64)]) -> (BlockHeader, Vec<u8>) {
        let mut e = BlockEncoder::new();
        for &(ts, exit, a) in events {
            match exit {
                Some(x) => e.push_call(ts, x, a),
                None => e.push_ext(ts, b"x"),
            }
        }
        let mut out = Vec::new();
        e.finish_into(&mut out);
        let h = BlockHeader::read(&out).unwrap();
        (h, out[tracekit_rt_format::block::BLOCK_HEADER..].to_vec())
    }

    #[test]
    fn blocks_before_the_window_leave_their_open_frames_and_a_refused_one_changes_nothing() {
        let maps = MapsHistory::default();
        let to_ns = |raw: u64| raw;
        let mut s = Skim::new(&maps, &to_ns, 100, true);
        // main enters f, f returns, main enters g.
        let (h, p) = block(&[
            (1, Some(false), 0x10),
            (2, Some(false), 0x20),
            (3, Some(true), 0x20),
            (4, Some(false), 0x30),
        ]);
        assert!(s.block(0, &h, &p));
        // g returns, main returns, then an extended event: refused, undone.
        let (h, p) = block(&[
            (5, Some(true), 0x30),
            (6, Some(true), 0x10),
            (7, Some(false), 0x40),
            (8, None, 0),
        ]);
        assert!(!s.block(0, &h, &p));
        // Refused for good.
        let (h, p) = block(&[(9, Some(true), 0x30)]);
        assert!(!s.block(0, &h, &p));
        assert_eq!(
            s.take(),
            Skimmed {
                stack: vec![0x10, 0x30],
                first_seen: vec![(0x10, 1), (0x20, 2), (0x30, 4)],
                setjmps: vec![],
                last_raw: 4,
            }
        );
    }

    #[test]
    fn a_setjmp_is_skimmed_with_its_depth_and_a_longjmp_is_not() {
        let ext = ext_body;
        let mut e = BlockEncoder::new();
        e.push_call(1, false, 0x10);
        e.push_ext(2, &ext(ExtKind::Setjmp));
        e.push_call(3, false, 0x20);
        let mut out = Vec::new();
        e.finish_into(&mut out);
        let h = BlockHeader::read(&out).unwrap();
        let maps = MapsHistory::default();
        let to_ns = |raw: u64| raw;
        let mut s = Skim::new(&maps, &to_ns, 100, true);
        assert!(s.block(0, &h, &out[tracekit_rt_format::block::BLOCK_HEADER..]));
        let mut e = BlockEncoder::new();
        e.push_ext(4, &ext(ExtKind::Longjmp));
        let mut out = Vec::new();
        e.finish_into(&mut out);
        let h = BlockHeader::read(&out).unwrap();
        assert!(!s.block(0, &h, &out[tracekit_rt_format::block::BLOCK_HEADER..]));
        let left = s.take();
        assert_eq!((left.stack, left.setjmps), (vec![0x10, 0x20], vec![(0xbeef, 1)]));
    }

    #[test]
    fn an_exit_below_the_top_or_a_block_reaching_the_window_is_not_skimmed() {
        let maps = MapsHistory::default();
        let to_ns = |raw: u64| raw;
        let mut s = Skim::new(&maps, &to_ns, 100, true);
        let (h, p) = block(&[(1, Some(false), 0x10), (2, Some(false), 0x20), (3, Some(true), 0x10)]);
        assert!(!s.block(0, &h, &p));
        assert_eq!(s.take(), Skimmed::default());
        let mut s = Skim::new(&maps, &to_ns, 100, true);
        let (h, p) = block(&[(99, Some(false), 0x10), (100, Some(true), 0x10)]);
        assert!(!s.block(0, &h, &p));
    }
}

//! Leaping over blocks before a time window by their depth summaries
//! (`tracekit_rt_format::block::DepthSummary`): the frames open after a run
//! of blocks, found by decoding only the blocks that entered them and the
//! few with extended events.
//!
//! Walking forward, the open frames are kept by level. A block with a
//! summary is not decoded: the frames above its lowest point are dropped
//! and the ones it left open are noted as "the `j`-th frame block `i` left
//! open". A block without one (it holds an extended event: a `setjmp`,
//! say) is decoded as the skim would. At the end, only the blocks named by
//! frames still open are decoded, once each, for their addresses. A run of
//! blocks with deep calls and shallow returns costs a few decoded blocks
//! however long it is.
//!
//! What the skim checks event by event is checked here only in the blocks
//! decoded: that an exit leaves the innermost frame. The walk stops before
//! a block the skim would refuse (an extended event other than a
//! `setjmp`, an exit below the run's first frame or of another frame than
//! the innermost known one, a function that depends on the time); the
//! leap fails (and the blocks are skimmed instead) when a block named by
//! an open frame does not agree with its summary.

use crate::follow::{follow_block, OpenFrames};
use crate::skim::Skimmed;
use crate::symbolize::MapsHistory;
use rustc_hash::{FxHashMap, FxHashSet};
use tracekit_rt_format::block::{BlockDecoder, BlockEvent, BlockHeader, DepthSummary};

/// An open frame during the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// Entered at this address, at this raw time.
    Known(u64, u64),
    /// The `slot`-th frame (outermost first) that the block at file
    /// offset `at`, with this header, left open.
    Left { at: u64, header: BlockHeader, slot: usize },
}

/// The frames a block of calls left open above its lowest point,
/// outermost first, with the raw time each was entered; `None` when the
/// block does not agree with its summary or an exit in it is not of its
/// innermost frame.
fn frames_left_open(header: &BlockHeader, payload: &[u8], s: DepthSummary) -> Option<Vec<(u64, u64)>> {
    let mut open: Vec<(u64, u64)> = Vec::new();
    let mut d = BlockDecoder::new(payload, header);
    let mut depth = 0i32;
    loop {
        match d.next_event() {
            Ok(None) => break,
            Ok(Some((raw, BlockEvent::Enter(a)))) => {
                open.push((a, raw));
                depth += 1;
            }
            Ok(Some((_, BlockEvent::Exit(a)))) => {
                // An exit with nothing of the block's open leaves a frame
                // from before it: only the depth says which.
                if let Some(&(top, _)) = open.last() {
                    if top != a {
                        return None;
                    }
                    open.pop();
                }
                depth -= 1;
            }
            Ok(Some((_, BlockEvent::Ext(_)))) | Err(_) => return None,
        }
    }
    (depth == s.net && open.len() as i64 == i64::from(s.net - s.lowest)).then_some(open)
}

/// The walk's state.
struct Walk<'a> {
    maps: &'a MapsHistory,
    stack: Vec<Frame>,
    first_seen: Vec<(u64, u64)>,
    seen: FxHashSet<u64>,
    setjmps: Vec<(u64, usize)>,
}

impl Walk<'_> {
    /// Takes a block with a summary; false (nothing changed) when the
    /// depth would go below the run's first frame.
    fn summarized(&mut self, at: u64, header: BlockHeader, s: DepthSummary) -> bool {
        let low = self.stack.len() as i64 + i64::from(s.lowest);
        if low < 0 {
            return false;
        }
        self.stack.truncate(low as usize);
        self.stack
            .extend((0..(s.net - s.lowest) as usize).map(|slot| Frame::Left { at, header, slot }));
        true
    }

    /// Follows a decoded block's events; false (nothing changed) when the
    /// skim would refuse it.
    fn decoded(&mut self, header: &BlockHeader, payload: &[u8]) -> bool {
        let (stack, seen_before, setjmps_before) = (self.stack.clone(), self.first_seen.len(), self.setjmps.len());
        let ok = follow_block(header, payload, self);
        if !ok {
            self.stack = stack;
            self.setjmps.truncate(setjmps_before);
            for (a, _) in self.first_seen.drain(seen_before..) {
                self.seen.remove(&a);
            }
        }
        ok
    }

    /// Notes address `a`, entered at `raw`; false when its function depends
    /// on the time (the skim refuses those).
    fn note(&mut self, a: u64, raw: u64) -> bool {
        if self.maps.depends_on_time(a, raw) {
            return false;
        }
        if self.seen.insert(a) {
            self.first_seen.push((a, raw));
        }
        true
    }
}

impl OpenFrames for Walk<'_> {
    fn enter(&mut self, a: u64, raw: u64) -> bool {
        if !self.note(a, raw) {
            return false;
        }
        self.stack.push(Frame::Known(a, raw));
        true
    }

    /// A frame known only as left open by a block may be any function.
    fn exit(&mut self, a: u64) -> bool {
        match self.stack.last() {
            Some(&Frame::Known(top, _)) if top != a => false,
            Some(_) => {
                self.stack.pop();
                true
            }
            None => false,
        }
    }

    fn setjmp(&mut self, buf: u64) {
        self.setjmps.push((buf, self.stack.len()));
    }
}

/// A leap in progress: the blocks are handed to it one at a time, in file
/// order, and it keeps only the open frames (memory bounded by the call
/// depth, not by the number of blocks).
pub(crate) struct Leap<'a> {
    walk: Walk<'a>,
    last_raw: u64,
}

impl<'a> Leap<'a> {
    /// A leap from `before`, the state at the first block it will take.
    pub fn new(before: &Skimmed, maps: &'a MapsHistory) -> Leap<'a> {
        Leap {
            walk: Walk {
                maps,
                stack: before.stack.iter().map(|&a| Frame::Known(a, before.last_raw)).collect(),
                first_seen: before.first_seen.clone(),
                seen: before.first_seen.iter().map(|&(a, _)| a).collect(),
                setjmps: before.setjmps.clone(),
            },
            last_raw: before.last_raw,
        }
    }

    /// Takes the block at file offset `at` (`read(at)` gives its payload,
    /// asked for only when it has no depth summary); false, and nothing
    /// changed, when the skim would refuse it: the leap ends before it.
    pub fn take(&mut self, at: u64, h: &BlockHeader, read: impl FnOnce(u64) -> Option<Vec<u8>>) -> bool {
        let ok = match h.depth() {
            Some(s) => self.walk.summarized(at, *h, s),
            None => read(at).is_some_and(|payload| self.walk.decoded(h, &payload)),
        };
        if ok {
            self.last_raw = h.last_ts;
        }
        ok
    }

    /// The state after the blocks taken, decoding (with `read`) each block
    /// named by a frame still open, once; `None` when one of them does not
    /// agree with its summary (the blocks are then skimmed instead).
    pub fn finish(mut self, mut read: impl FnMut(u64) -> Option<Vec<u8>>) -> Option<Skimmed> {
        let mut left: FxHashMap<u64, Vec<(u64, u64)>> = FxHashMap::default();
        let mut stack = Vec::with_capacity(self.walk.stack.len());
        for f in std::mem::take(&mut self.walk.stack) {
            let (a, raw) = match f {
                Frame::Known(a, raw) => (a, raw),
                Frame::Left { at, header, slot } => {
                    if let std::collections::hash_map::Entry::Vacant(e) = left.entry(at) {
                        let payload = read(at)?;
                        e.insert(frames_left_open(&header, &payload, header.depth()?)?);
                    }
                    left[&at][slot]
                }
            };
            if !self.walk.note(a, raw) {
                return None;
            }
            stack.push(a);
        }
        Some(Skimmed {
            stack,
            first_seen: self.walk.first_seen,
            setjmps: self.walk.setjmps,
            last_raw: self.last_raw,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_rt_format::block::{BlockEncoder, BLOCK_HEADER, FLAG_COMPACT};
    use tracekit_rt_format::ExtKind;

    /// A block of calls `(time, exit?, address)`, then the extended event
    /// `ext` when given.
    fn block(events: &[(u64, bool, u64)], ext: Option<(u64, ExtKind)>) -> (BlockHeader, Vec<u8>) {
        let mut e = BlockEncoder::new();
        for &(ts, exit, a) in events {
            e.push_call(ts, exit, a);
        }
        if let Some((ts, sub)) = ext {
            e.push_ext(ts, &crate::skim::tests::ext_body(sub));
        }
        let mut out = Vec::new();
        e.finish_into(&mut out);
        (BlockHeader::read(&out).unwrap(), out[BLOCK_HEADER..].to_vec())
    }

    /// Leaps over `run` (block `i` at file offset `i`) from `before` as far
    /// as it goes: the state and how many blocks were taken.
    fn leap(
        before: &Skimmed,
        run: &[BlockHeader],
        read: impl FnMut(usize) -> Option<Vec<u8>>,
        maps: &MapsHistory,
    ) -> Option<(Skimmed, usize)> {
        let read = std::cell::RefCell::new(read);
        let mut l = Leap::new(before, maps);
        let taken = run
            .iter()
            .enumerate()
            .take_while(|&(i, h)| l.take(i as u64, h, |at| read.borrow_mut()(at as usize)))
            .count();
        Some((l.finish(|at| read.borrow_mut()(at as usize))?, taken))
    }

    /// Leaps over `blocks` from `before`; also which blocks were read.
    fn leap_over(before: &Skimmed, blocks: &[(BlockHeader, Vec<u8>)]) -> (Option<(Skimmed, usize)>, Vec<usize>) {
        let headers: Vec<BlockHeader> = blocks.iter().map(|(h, _)| *h).collect();
        let mut read = Vec::new();
        let maps = MapsHistory::default();
        let out = leap(
            before,
            &headers,
            |i| {
                read.push(i);
                Some(blocks[i].1.clone())
            },
            &maps,
        );
        (out, read)
    }

    /// The frames skimming the blocks one event at a time leaves.
    fn skimmed(start: &[u64], blocks: &[(BlockHeader, Vec<u8>)]) -> Vec<u64> {
        let mut stack = start.to_vec();
        for (h, p) in blocks {
            let mut d = BlockDecoder::new(p, h);
            while let Some((_, e)) = d.next_event().unwrap() {
                match e {
                    BlockEvent::Enter(a) => stack.push(a),
                    BlockEvent::Exit(a) => assert_eq!(stack.pop(), Some(a)),
                    BlockEvent::Ext(_) => {}
                }
            }
        }
        stack
    }

    fn main_and(callee: u64) -> Skimmed {
        Skimmed {
            stack: vec![0x10, callee],
            first_seen: vec![(0x10, 0), (callee, 0)],
            setjmps: vec![],
            last_raw: 0,
        }
    }

    #[test]
    fn a_leap_leaves_the_frames_a_skim_would_and_reads_only_the_blocks_that_entered_them() {
        let (enter, exit) = (false, true);
        let blocks = vec![
            // main's callee 0x20 returns, 0x30 is entered.
            block(&[(1, exit, 0x20), (2, enter, 0x30), (3, enter, 0x40)], None),
            // Deep and back: nothing of it stays open.
            block(
                &[(4, enter, 0x50), (5, enter, 0x60), (6, exit, 0x60), (7, exit, 0x50)],
                None,
            ),
            block(&[(8, exit, 0x40), (9, enter, 0x70), (10, enter, 0x80)], None),
            block(&[(11, enter, 0x90), (12, exit, 0x90)], None),
        ];
        let before = main_and(0x20);
        let (out, read) = leap_over(&before, &blocks);
        let (after, taken) = out.unwrap();
        assert_eq!(taken, 4);
        assert_eq!(after.stack, skimmed(&before.stack, &blocks));
        assert_eq!(after.stack, vec![0x10, 0x30, 0x70, 0x80]);
        // Block 0 entered 0x30, block 2 0x70 and 0x80; 1 and 3 are never read.
        assert_eq!(read, vec![0, 2]);
        assert_eq!(
            after.first_seen,
            vec![(0x10, 0), (0x20, 0), (0x30, 2), (0x70, 9), (0x80, 10)]
        );
        assert_eq!(after.last_raw, 12);
    }

    #[test]
    fn a_setjmp_block_is_read_and_the_walk_stops_before_a_longjmp() {
        let (enter, exit) = (false, true);
        let blocks = vec![
            block(&[(1, enter, 0x30), (2, enter, 0x40)], None),
            // A setjmp at depth 3, under frames of block 0.
            block(&[(3, exit, 0x40)], Some((4, ExtKind::Setjmp))),
            block(&[(5, enter, 0x50), (6, enter, 0x60)], None),
            block(&[(7, enter, 0x70)], Some((8, ExtKind::Longjmp))),
            block(&[(9, enter, 0x80)], None),
        ];
        let before = main_and(0x20);
        let (out, read) = leap_over(&before, &blocks);
        let (after, taken) = out.unwrap();
        // The longjmp's block and what follows are left to the skim.
        assert_eq!(taken, 3);
        assert_eq!(after.stack, skimmed(&before.stack, &blocks[..3]));
        assert_eq!(after.setjmps, vec![(0xbeef, 3)]);
        assert_eq!(after.last_raw, 6);
        // Blocks 1 and 3 for their extended events, 0 and 2 for their frames.
        assert_eq!(read, vec![1, 3, 0, 2]);
    }

    #[test]
    fn exits_below_the_first_frame_stop_the_walk() {
        let blocks = vec![
            block(&[(1, false, 0x30), (2, true, 0x30)], None),
            block(&[(3, true, 0x20), (4, true, 0x10), (5, true, 0x08)], None),
        ];
        let (out, _) = leap_over(&main_and(0x20), &blocks);
        let (after, taken) = out.unwrap();
        assert_eq!((after.stack, taken, after.last_raw), (vec![0x10, 0x20], 1, 2));
    }

    #[test]
    fn a_block_that_disagrees_with_its_summary_or_its_frames_is_not_leapt() {
        let maps = MapsHistory::default();
        let before = Skimmed::default();
        // An exit of a frame the block did not enter last.
        let (h, p) = block(
            &[(1, false, 0x10), (2, false, 0x20), (3, true, 0x10), (4, false, 0x30)],
            None,
        );
        assert_eq!(leap(&before, &[h], |_| Some(p.clone()), &maps), None);
        // A summary that says more frames are open than the payload has.
        let (mut h, p) = block(&[(1, false, 0x10), (2, false, 0x20)], None);
        let (lie, _) = block(&[(1, false, 0x10), (2, false, 0x20), (3, false, 0x20)], None);
        h.flags = lie.flags;
        h.events = 3;
        assert_eq!(leap(&before, &[h], |_| Some(p.clone()), &maps), None);
        // A block that cannot be read.
        let (mut h, p) = block(&[(1, false, 0x10)], None);
        assert_eq!(leap(&before, &[h], |_| None, &maps), None);
        // A block without a summary (an earlier recorder's) is read whole.
        h.flags = FLAG_COMPACT;
        let (after, taken) = leap(&before, &[h], |_| Some(p.clone()), &maps).unwrap();
        assert_eq!((after.stack, taken), (vec![0x10], 1));
    }
}

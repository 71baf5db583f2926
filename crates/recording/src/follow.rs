//! Following a block's events over the open frames, as the skim
//! (`skim.rs`) and the leap (`leap.rs`) both do before a time window: plain
//! enters, exits of the innermost frame and `setjmp`s; any other event
//! stops it.

use tracekit_rt_format::block::{BlockDecoder, BlockEvent, BlockHeader};
use tracekit_rt_format::{ExtEvent, ExtKind};

/// The open frames a block's events are followed over.
pub(crate) trait OpenFrames {
    /// The function at `a` was entered at raw time `raw`; false when it
    /// cannot be followed (its function depends on the time).
    fn enter(&mut self, a: u64, raw: u64) -> bool;
    /// The function at `a` returned; false when that does not leave the
    /// innermost frame.
    fn exit(&mut self, a: u64) -> bool;
    /// A `setjmp` on the buffer at `buf`, at the current depth.
    fn setjmp(&mut self, buf: u64);
}

/// Follows the events of the block with this header and payload; false at
/// the first one that cannot be followed (an extended event other than a
/// `setjmp`, an exit or enter `frames` refuses, a damaged block), leaving
/// it to the caller to undo what came before it.
pub(crate) fn follow_block(header: &BlockHeader, payload: &[u8], frames: &mut impl OpenFrames) -> bool {
    let mut d = BlockDecoder::new(payload, header);
    loop {
        let followed = match d.next_event() {
            Ok(None) => return true,
            Ok(Some((raw, BlockEvent::Enter(a)))) => frames.enter(a, raw),
            Ok(Some((_, BlockEvent::Exit(a)))) => frames.exit(a),
            Ok(Some((_, BlockEvent::Ext(body)))) => match ExtEvent::decode(body) {
                Ok(x) if x.sub == ExtKind::Setjmp => {
                    frames.setjmp(x.object_id);
                    true
                }
                _ => false,
            },
            Err(_) => false,
        };
        if !followed {
            return false;
        }
    }
}

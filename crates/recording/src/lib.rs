//! `tracekit-recording`: reads the directories `tracekit record` (and the
//! native runtime on its own) writes, into a [`tracekit_model::Session`].
//!
//! A recording directory holds one file per thread (`thread-*.tkt`, laid
//! out by `tracekit-rt-format`), a copy of each process image's memory map,
//! clock pairs, the context sampler's `context.jsonl` and `recording.json`.
//! This crate is the format layer for all of them; the recorder
//! (`tracekit-record`) only captures.
//!
//! - [`load_recording`] turns a directory into a session: ticks → timeline
//!   ns, addresses → functions through the saved process maps (ELF
//!   symbols, DWARF lines, C++ and Rust demangling), stacks balanced;
//! - [`recording_stats`] counts events and lost events per thread without
//!   building a session;
//! - [`is_recording_dir`] tells whether a directory is a recording.
//!
//! ```no_run
//! let session = tracekit_recording::load_recording(std::path::Path::new("rec"))?;
//! println!("{} threads", session.threads.len());
//! # anyhow::Ok(())
//! ```

mod balance;
mod blocks;
mod checkpoints;
pub mod context_file;
mod follow;
mod layout;
mod leap;
mod load;
pub mod meta;
mod skim;
pub mod symbolize;
pub mod thread_file;
mod window;

pub use load::{
    balance, balance_steps, load_recording, load_recording_window, recording_stats, stream_recording, Balanced,
    Balancer, CallSink, RecordingSink, Step,
};
pub use tracekit_rt_format::names;
pub use window::{first_events_window, FirstEvents};

/// True when `dir` is a directory holding `recording.json` or at least one
/// thread file.
pub fn is_recording_dir(dir: &std::path::Path) -> bool {
    if dir.join(names::META_FILE).is_file() {
        return true;
    }
    std::fs::read_dir(dir).is_ok_and(|d| {
        d.flatten().any(|e| {
            matches!(
                names::parse(&e.file_name().to_string_lossy()),
                Some(names::RecordingFile::Thread { .. })
            )
        })
    })
}

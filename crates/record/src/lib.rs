//! `tracekit-record`: records native programs and loads the recordings.
//!
//! - [`record`] runs a command with the `tracekit-rt` runtime preloaded and a
//!   separate context sampler process ([`context`]), and writes
//!   `recording.json` with the clock anchor;
//! - [`load_recording`] turns a recording directory into a
//!   [`tracekit_model::Session`], symbolizing addresses offline from the
//!   saved process maps (ELF symbols, DWARF lines, C++/Rust demangling);
//! - [`listing`] flattens a session into the indented replay listing.
//!
//! ```no_run
//! use tracekit_record::*;
//! let opts = RecordOptions { out: "rec".into(), command: vec!["./app".into()], ..Default::default() };
//! record(&opts, None)?;
//! let session = load_recording(std::path::Path::new("rec"))?;
//! print!("{}", render_text(&listing(&session, &ListingFilter::default())));
//! # anyhow::Ok(())
//! ```

pub mod context;
mod drain;
mod listing;
mod load;
pub mod meta;
mod spawn;
pub mod symbolize;
pub mod thread_file;

pub use listing::{format_duration, listing, render_text, ListedEvent, ListingFilter};
pub use load::{balance, load_recording, recording_stats};
pub use spawn::{find_runtime, record, RecordOptions, RecordOutcome, RUNTIME_LIB};

/// Loads a native recording directory, or an object trace file (seed 004's
/// format, see `tracekit-objtrace`).
pub fn load_any(path: &std::path::Path) -> anyhow::Result<tracekit_model::Session> {
    if path.is_dir() {
        load_recording(path)
    } else {
        Ok(tracekit_objtrace::read_file(path)?)
    }
}

/// True when `path` is something [`load_any`] reads: a directory holding
/// `recording.json` or thread files, or a file ending in `.otr`.
pub fn is_native_input(path: &std::path::Path) -> bool {
    let has_threads = || {
        std::fs::read_dir(path).is_ok_and(|d| d.flatten().any(|e| e.file_name().to_string_lossy().ends_with(".tkt")))
    };
    path.join(meta::META_FILE).is_file()
        || path.extension().is_some_and(|e| e == "otr")
        || (path.is_dir() && has_threads())
}

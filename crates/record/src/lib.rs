//! `tracekit-record`: records native programs.
//!
//! [`record`] runs a command with the `tracekit-rt` runtime preloaded and a
//! separate context sampler process ([`context`]), drains the runtime's ring
//! buffers into thread files and writes `recording.json` with the clock
//! anchor. It only captures: `tracekit-recording` reads what it wrote.
//!
//! ```no_run
//! use tracekit_record::*;
//! let opts = RecordOptions { out: "rec".into(), command: vec!["./app".into()], ..Default::default() };
//! record(&opts, None)?;
//! let session = tracekit_recording::load_recording(std::path::Path::new("rec"))?;
//! # anyhow::Ok(())
//! ```

pub mod clock;
pub mod context;
mod descendants;
mod direct_out;
mod drain;
pub use drain::DrainTotals;
pub mod power;
mod power_record;
mod spawn;

pub use power_record::{power_record, PowerRecordOptions};
pub use spawn::{
    find_runtime, holds_recording, record, RecordOptions, RecordOutcome, DEFAULT_RING_MAX_KB, RUNTIME_LIB,
};

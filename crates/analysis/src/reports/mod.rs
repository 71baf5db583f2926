//! The JSON reports of the trace commands, as typed serde structs built
//! from the analyses: `info` ([`SessionSummary`]), `profile`
//! ([`ProfileReport`]), `calltree` ([`CallTreeReport`]), `context`
//! ([`ContextReport`]), `problems` ([`ProblemReport`]) and `replay`
//! ([`ListingReport`]).
//!
//! These are contracts: scripts read them. Fields may be added, never
//! renamed or removed. Times are µs as numbers (`…_us`); a clock the session
//! lacks gives `null`.

mod problems;
mod profile;
mod session;

pub use problems::{ProblemEnergy, ProblemIntervals, ProblemOccurrence, ProblemReport};
pub use profile::{CallTreeReport, MethodRow, ProfileEnergy, ProfileReport, ThreadProfile};
pub use session::{ContextItemSummary, ContextReport, ListingReport, RepairSummary, SessionSummary, ThreadSummary};

/// ns → µs.
pub(crate) fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// ns → µs, or `None` when the clock is absent.
pub(crate) fn us_if(present: bool, ns: u64) -> Option<f64> {
    present.then(|| us(ns))
}

#[cfg(test)]
mod tests;

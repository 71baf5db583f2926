//! Analyses over the tracekit model: where the time went and which context
//! goes with a problem.
//!
//! - [`Profile`]: Traceview's per-method table (inclusive/exclusive time on
//!   each clock, calls, recursive calls, parents and children), per thread or
//!   across threads, optionally restricted to a window of time;
//! - [`CallTree`]: dmtracedump's call tree; [`CallGraph`]: its call graph,
//!   with the share of each method and call inside a window (seed 000 §5.7);
//! - [`slices`]: each thread's calls as nested intervals per depth, an index
//!   for level-of-detail drawing and for [`interval_profile`], the profile
//!   and call tree of any set of intervals in time proportional to the calls
//!   inside them (what a viewer asks on every selection);
//! - [`call_rows`]: every call as one row (start, duration, depth, parent),
//!   a batch at a time: the SQL `call` table;
//! - [`context::value_at`] and [`context::snapshot`]: the context at an instant;
//! - [`Condition`]: context conditions and the intervals where they hold;
//! - [`problems::find`] and [`hints::hints`]: problem occurrences and ranked
//!   context hints, over one or several sessions;
//! - [`listing`]: every event of a session in order, indented by depth, the
//!   way `tracekit replay` prints it;
//! - [`reports`]: the JSON reports of the trace commands, as typed structs.
//!
//! Analyses read a [`tracekit_model::Session`] and never a file.
//!
//! ```
//! use tracekit_model::*;
//! use tracekit_analysis::{Profile, ProfileOptions};
//! let mut s = Session::new("demo", Clocks::WALL);
//! let t = s.add_thread(Thread::new(1, "main"));
//! let run = s.methods.intern(Method::new("App", "run", "()V"));
//! let work = s.methods.intern(Method::new("App", "work", "()V"));
//! for e in [CallEvent::enter(run, 0, None), CallEvent::enter(work, 10, None),
//!           CallEvent::exit(work, 40, None), CallEvent::exit(run, 50, None)] {
//!     s.calls_mut(t).push(e);
//! }
//! let p = Profile::of(&s, &ProfileOptions::default());
//! let r = p.method(run).unwrap();
//! assert_eq!((r.incl_real_ns, r.excl_real_ns), (50, 20));
//! ```

pub mod call_rows;
pub mod callgraph;
mod calltree;
mod condition;
pub mod context;
pub mod hints;
mod intervals;
pub mod listing;
pub mod problems;
mod profile;
pub mod reports;
pub mod slices;
mod stream;
mod walk;
mod window_profile;

pub use callgraph::{CallGraph, GraphEdge, GraphNode, GraphShare, Pruned};
pub use calltree::{CallNode, CallTree};
pub use condition::{find_track, Condition, Op, MAX_COMPARISONS, MAX_NESTING};
pub use hints::{Hint, HintKind, HintOptions, HintStats, ValueShare};
pub use intervals::{Interval, IntervalSet};
pub use problems::{Occurrence, ProblemDef, ProblemMatch};
pub use profile::{EdgeProfile, MethodProfile, Profile, ProfileOptions};
pub use slices::{session_slices, ThreadSlices};
pub use stream::StreamAnalysis;
pub use window_profile::{
    interval_profile, normalize_intervals, IntervalProfile, ProfileRow, TreeNode, MAX_TREE_NODES,
};

/// Why an analysis could not run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// The condition text is malformed or does not fit the item's type.
    #[error("condition: {0}")]
    Condition(String),
    /// No context item has that label.
    #[error("{}", unknown_context_message(label, known))]
    UnknownContext {
        /// The label asked for.
        label: String,
        /// The labels that exist.
        known: Vec<String>,
    },
    /// No method matches the pattern.
    #[error("no method matches {0:?} (give a method name, Class.method or package/Class.method)")]
    UnknownMethod(String),
}

/// "no context item is labelled X", with the closest label when one is
/// near (a typo), else every label, else how to get context at all.
fn unknown_context_message(label: &str, known: &[String]) -> String {
    let mut text = format!("no context item is labelled {label:?}");
    if known.is_empty() {
        text.push_str(
            "; this session has no context at all (an Android trace needs NAME.clog beside NAME.trace; \
             other captures need counters)",
        );
        return text;
    }
    let lower = label.to_lowercase();
    let near = known
        .iter()
        .map(|k| (condition::edit_distance(&lower, &k.to_lowercase()), k))
        .filter(|(d, k)| *d <= 2 + k.chars().count() / 8)
        .min_by_key(|(d, _)| *d);
    if let Some((_, k)) = near {
        text.push_str(&format!("; did you mean {k:?}?"));
    }
    text.push_str(&format!(" The items are: {}", known.join(", ")));
    text
}

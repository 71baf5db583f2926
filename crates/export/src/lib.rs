//! Writes a tracekit [`Session`] in the formats that popular viewers read,
//! one function per format (like ripgrep's printer crate, this crate owns
//! output and nothing else):
//!
//! - [`write_speedscope`]: speedscope's file format, one evented profile per
//!   thread whose open and close events are every call's exact enter and
//!   exit, in nanoseconds;
//! - [`write_firefox`]: the Firefox Profiler's processed profile format
//!   (version 55 of its layout, which the profiler upgrades on load): a
//!   synthetic sample at every instant the stack changes, weighted by the
//!   time until the next change (`tracing-ms`), so call tree, flame graph
//!   and stack chart times are the trace's times; session markers as
//!   instant markers;
//! - [`write_folded`]: Brendan Gregg's collapsed stacks (`a;b;c 123`), the
//!   exclusive time of every distinct stack in whole microseconds on the
//!   wall or thread-CPU clock, for flamegraph.pl, inferno and speedscope.
//!
//! It is a view: it takes a session and never parses a file. Frames are
//! named by [`frame_names`]. Every writer buffers its output itself, so a
//! plain [`std::fs::File`] is fine as `out`.
//!
//! ```
//! use tracekit_model::*;
//! let mut s = Session::new("demo", Clocks::WALL);
//! let t = s.add_thread(Thread::new(1, "main"));
//! let run = s.methods.intern(Method::new("App", "run", "()V"));
//! let work = s.methods.intern(Method::new("App", "work", "()V"));
//! for e in [CallEvent::enter(run, 0, None), CallEvent::enter(work, 10_000, None),
//!           CallEvent::exit(work, 40_000, None), CallEvent::exit(run, 50_000, None)] {
//!     s.calls_mut(t).push(e);
//! }
//! let mut folded = Vec::new();
//! tracekit_export::write_folded(&s, &tracekit_export::FoldedOptions::default(), &mut folded).unwrap();
//! assert_eq!(String::from_utf8(folded).unwrap(), "App.run 20\nApp.run;App.work 30\n");
//! ```

mod firefox;
mod folded;
mod json;
mod speedscope;
mod walk;

pub use firefox::write_firefox;
pub use folded::{write_folded, FoldedOptions};
pub use speedscope::write_speedscope;

use std::collections::HashMap;
use tracekit_model::{MethodTable, Session};

/// Which clock a weighted export measures time on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Clock {
    /// Wall (real) time: the session's timeline.
    #[default]
    Wall,
    /// CPU time consumed by the thread.
    ThreadCpu,
}

impl Clock {
    /// `wall` or `thread-cpu`.
    pub fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall",
            Clock::ThreadCpu => "thread-cpu",
        }
    }
}

/// Why an export could not be written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Writing the output failed.
    #[error("writing the export: {0}")]
    Io(#[from] std::io::Error),
    /// The export asks for a clock the session's call events do not carry.
    #[error("the session has no {} clock (it has: {})", .0.name(), .1)]
    MissingClock(Clock, &'static str),
    /// The format cannot say anything about a session without calls.
    #[error("nothing to export: no thread of the session has calls")]
    NoCalls,
}

/// The frame name every format shows for each method, indexed by method id:
/// [`tracekit_model::Method::qualified_name`] (`com.example.App.run`), or
/// [`tracekit_model::Method::display_name`] (with the signature) for methods
/// whose qualified name another method shares (overloads), so that frames
/// that are different methods read differently.
pub fn frame_names(methods: &MethodTable) -> Vec<String> {
    let names: Vec<String> = methods.iter().map(|(_, m)| m.qualified_name()).collect();
    let mut seen: HashMap<&str, u32> = HashMap::new();
    for n in &names {
        *seen.entry(n.as_str()).or_default() += 1;
    }
    methods
        .iter()
        .zip(&names)
        .map(|((_, m), n)| {
            if seen[n.as_str()] > 1 {
                m.display_name()
            } else {
                n.clone()
            }
        })
        .collect()
}

/// The name a viewer shows for a thread: its label and OS thread id.
fn thread_title(session: &Session, i: usize) -> String {
    let t = &session.threads[i];
    let process = t
        .pid
        .and_then(|pid| session.processes.iter().find(|p| p.pid == pid))
        .filter(|p| !p.name.is_empty());
    match process {
        Some(p) if session.processes.len() > 1 => format!("{}: {} (tid {})", p.name, t.label(), t.tid),
        _ => format!("{} (tid {})", t.label(), t.tid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::Method;

    #[test]
    fn overloads_get_their_signature() {
        let mut t = MethodTable::new();
        t.intern(Method::new("a/B", "f", "(I)V"));
        t.intern(Method::new("a/B", "f", "(J)V"));
        t.intern(Method::new("", "main", ""));
        assert_eq!(frame_names(&t), vec!["a.B.f (I)V", "a.B.f (J)V", "main"]);
    }
}

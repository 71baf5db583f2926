//! Rows of a decoded path log (`tracekit paths decode-log`): invocations
//! per method, executions per block path, traversals per control-flow
//! edge. Frequencies of a deterministic program are exact.
//!
//! The log is decoded as a stream: [`PathRows`] takes one invocation at a
//! time, so memory is the rows, never the run.

use crate::metric::{By, Metric};
use crate::run::RunData;
use tracekit_jvm::Invocation;

/// The virtual entry of a method's graph, in edge names.
pub const ENTRY: &str = "entry";
/// The virtual exit of a method's graph, in edge names.
pub const EXIT: &str = "exit";

/// Rows built one invocation at a time: [`By::Method`] (`method`:
/// invocations), [`By::Path`] (`method`, `b0 b2 b3`: executions of that
/// exact block path) or [`By::Edge`] (`method`, `b2→b3`: traversals;
/// `entry→b0` and `bN→exit` included, no exit edge for an invocation an
/// exception or the JVM's exit cut short). Metric: [`Metric::Executions`].
pub struct PathRows {
    run: RunData,
    by: By,
    text: String,
    prev: String,
}

impl PathRows {
    /// Empty rows of run `label`, grouped `by`.
    ///
    /// Panics for a `by` other than method, path or edge.
    pub fn new(label: impl Into<String>, by: By) -> Self {
        assert!(
            matches!(by, By::Method | By::Path | By::Edge),
            "a path log has no rows by {}",
            by.name()
        );
        PathRows {
            run: RunData::new(label, by, vec![Metric::Executions]),
            by,
            text: String::new(),
            prev: String::new(),
        }
    }

    /// Counts one invocation of `method` that ran `blocks` (bytecode order
    /// ids) and returned, or ended by an exception when `aborted`.
    pub fn add(&mut self, method: &str, blocks: impl IntoIterator<Item = u32>, aborted: bool) {
        use std::fmt::Write;
        let m = self.run.frame(method);
        match self.by {
            By::Method => self.run.add(&[m], &[1.0]),
            By::Path => {
                self.text.clear();
                for (i, b) in blocks.into_iter().enumerate() {
                    if i > 0 {
                        self.text.push(' ');
                    }
                    let _ = write!(self.text, "b{b}");
                }
                if aborted {
                    self.text.push_str(" (aborted)");
                }
                let p = self.run.frame(&self.text);
                self.run.add(&[m, p], &[1.0]);
            }
            _ => {
                self.prev.clear();
                self.prev.push_str(ENTRY);
                for b in blocks {
                    self.text.clear();
                    let _ = write!(self.text, "{}→b{b}", self.prev);
                    let e = self.run.frame(&self.text);
                    self.run.add(&[m, e], &[1.0]);
                    self.prev.clear();
                    let _ = write!(self.prev, "b{b}");
                }
                if !aborted {
                    self.text.clear();
                    let _ = write!(self.text, "{}→{EXIT}", self.prev);
                    let e = self.run.frame(&self.text);
                    self.run.add(&[m, e], &[1.0]);
                }
            }
        }
    }

    /// The finished rows.
    pub fn finish(self) -> RunData {
        self.run
    }
}

/// Rows of decoded invocations held in memory (small logs, tests); see [`PathRows`].
///
/// Panics for a `by` other than method, path or edge.
pub fn from_invocations<'a>(
    label: impl Into<String>,
    invocations: impl IntoIterator<Item = &'a Invocation>,
    by: By,
) -> RunData {
    let mut rows = PathRows::new(label, by);
    for inv in invocations {
        rows.add(&inv.method, inv.path.iter().copied(), inv.aborted);
    }
    rows.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv(method: &str, path: &[u32], aborted: bool) -> Invocation {
        Invocation {
            method: method.into(),
            thread: "main".into(),
            path: path.to_vec(),
            aborted,
            method_id: 0,
            bits: 0,
            thread_index: 0,
        }
    }

    fn rows(r: &RunData) -> Vec<(String, f64)> {
        r.rows().map(|(k, v)| (r.key_names(k).join(" | "), v[0])).collect()
    }

    #[test]
    fn methods_paths_and_edges() {
        let d = [
            inv("A.f()V", &[0, 1, 3], false),
            inv("A.f()V", &[0, 1, 3], false),
            inv("A.f()V", &[0, 2], true),
        ];
        assert_eq!(rows(&from_invocations("l", &d, By::Method)), [("A.f()V".into(), 3.0)]);
        assert_eq!(
            rows(&from_invocations("l", &d, By::Path)),
            [
                ("A.f()V | b0 b1 b3".into(), 2.0),
                ("A.f()V | b0 b2 (aborted)".into(), 1.0)
            ]
        );
        let e = rows(&from_invocations("l", &d, By::Edge));
        assert_eq!(
            e,
            [
                ("A.f()V | entry→b0".into(), 3.0),
                ("A.f()V | b0→b1".into(), 2.0),
                ("A.f()V | b1→b3".into(), 2.0),
                ("A.f()V | b3→exit".into(), 2.0),
                ("A.f()V | b0→b2".into(), 1.0),
            ]
        );
    }
}

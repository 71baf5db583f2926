//! Rows of a decoded path log (`tracekit paths decode-log`): invocations
//! per method, executions per block path, traversals per control-flow
//! edge. Frequencies of a deterministic program are exact.

use crate::metric::{By, Metric};
use crate::run::RunData;
use tracekit_jvm::Decoded;

/// The virtual entry of a method's graph, in edge names.
pub const ENTRY: &str = "entry";
/// The virtual exit of a method's graph, in edge names.
pub const EXIT: &str = "exit";

/// Reduces a decoded log to rows: [`By::Method`] (`method`: invocations),
/// [`By::Path`] (`method`, `b0 b2 b3`: executions of that exact block
/// path) or [`By::Edge`] (`method`, `b2→b3`: traversals; `entry→b0` and
/// `bN→exit` included, no exit edge for an invocation an exception or the
/// JVM's exit cut short). Metric: [`Metric::Executions`].
///
/// Panics for any other `by`.
pub fn from_decoded(label: impl Into<String>, decoded: &Decoded, by: By) -> RunData {
    let mut run = RunData::new(label, by, vec![Metric::Executions]);
    let mut text = String::new();
    for inv in &decoded.invocations {
        let m = run.frame(&inv.method);
        match by {
            By::Method => run.add(&[m], &[1.0]),
            By::Path => {
                text.clear();
                for (i, b) in inv.path.iter().enumerate() {
                    if i > 0 {
                        text.push(' ');
                    }
                    text.push_str(&format!("b{b}"));
                }
                if inv.aborted {
                    text.push_str(" (aborted)");
                }
                let p = run.frame(&text);
                run.add(&[m, p], &[1.0]);
            }
            By::Edge => {
                let mut prev = ENTRY.to_owned();
                for b in &inv.path {
                    let here = format!("b{b}");
                    let e = run.frame(&format!("{prev}→{here}"));
                    run.add(&[m, e], &[1.0]);
                    prev = here;
                }
                if !inv.aborted {
                    let e = run.frame(&format!("{prev}→{EXIT}"));
                    run.add(&[m, e], &[1.0]);
                }
            }
            other => panic!("a path log has no rows by {}", other.name()),
        }
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_jvm::Invocation;

    fn inv(method: &str, path: &[u32], aborted: bool) -> Invocation {
        Invocation {
            method: method.into(),
            thread: "main".into(),
            path: path.to_vec(),
            aborted,
            method_id: 0,
            bits: 0,
            completed: None,
            nested: false,
            thread_index: 0,
            packed_bits: 0,
        }
    }

    fn rows(r: &RunData) -> Vec<(String, f64)> {
        r.rows().map(|(k, v)| (r.key_names(k).join(" | "), v[0])).collect()
    }

    #[test]
    fn methods_paths_and_edges() {
        let d = Decoded {
            bits: 0,
            packed_bits: 0,
            method_ref_bits: 0,
            verified: 0,
            invocations: vec![
                inv("A.f()V", &[0, 1, 3], false),
                inv("A.f()V", &[0, 1, 3], false),
                inv("A.f()V", &[0, 2], true),
            ],
        };
        assert_eq!(rows(&from_decoded("l", &d, By::Method)), [("A.f()V".into(), 3.0)]);
        assert_eq!(
            rows(&from_decoded("l", &d, By::Path)),
            [
                ("A.f()V | b0 b1 b3".into(), 2.0),
                ("A.f()V | b0 b2 (aborted)".into(), 1.0)
            ]
        );
        let e = rows(&from_decoded("l", &d, By::Edge));
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

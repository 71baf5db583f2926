//! The edge-probability model file shared between runs.
//!
//! A UTF-8 text file with tab-separated columns (shown as `<TAB>` below). Lines that are empty or
//! start with `#` are ignored; the first other line is the header:
//!
//! ```text
//! # tracekit-paths edge model v1
//! method<TAB>from<TAB>to<TAB>probability<TAB>counter
//! m<TAB>C<TAB>B<TAB>0.750000<TAB>3
//! m<TAB>C<TAB>D<TAB>0.250000<TAB>1
//! ```
//!
//! One row per out-edge of a block with several live out-edges. `counter`
//! (an integer ≥ 1) is what AdapTracer's coder uses; `probability` is
//! `counter / Σ counters of the block`, written for people and checked to be
//! a number in `[0, 1]` on reading, otherwise ignored. Edges missing from the
//! file start with counter 1 (equal probabilities, the seed's eq. 1). Rows
//! for methods or edges the program does not have are kept and written back
//! unchanged, so one model file can serve a whole application. Names must
//! not contain tabs or line breaks.
//!
//! A model with run contexts (see [`crate::adaptive::ContextKind`]) adds a
//! sixth column, `context`: the header ends in `<TAB>context`, rows with an
//! empty context are the per-edge counters above, and rows with a context
//! number `c` hold the counter of that edge in counter set `c`.

use crate::error::{PathError, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The header line of the model file.
pub const MODEL_HEADER: &str = "method\tfrom\tto\tprobability\tcounter";
/// The header line of a model file with per-context rows.
pub const MODEL_HEADER_CONTEXTS: &str = "method\tfrom\tto\tprobability\tcounter\tcontext";

/// Edge counters by `(method, from, to)` names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EdgeModel {
    counters: BTreeMap<(String, String, String), u32>,
    contexts: BTreeMap<(String, String, String, u32), u32>,
}

impl EdgeModel {
    /// An empty model (every counter 1).
    pub fn new() -> Self {
        Self::default()
    }

    /// The counter of an edge, if recorded.
    pub fn counter(&self, method: &str, from: &str, to: &str) -> Option<u32> {
        self.counters
            .get(&(method.to_string(), from.to_string(), to.to_string()))
            .copied()
    }

    /// Sets the counter of an edge (values below 1 become 1).
    pub fn set_counter(&mut self, method: &str, from: &str, to: &str, counter: u32) {
        self.counters
            .insert((method.to_string(), from.to_string(), to.to_string()), counter.max(1));
    }

    /// The counter of an edge in counter set `context`, if recorded.
    pub fn context_counter(&self, method: &str, from: &str, to: &str, context: u32) -> Option<u32> {
        self.contexts
            .get(&(method.to_string(), from.to_string(), to.to_string(), context))
            .copied()
    }

    /// Sets the counter of an edge in counter set `context` (at least 1).
    pub fn set_context_counter(&mut self, method: &str, from: &str, to: &str, context: u32, counter: u32) {
        self.contexts.insert(
            (method.to_string(), from.to_string(), to.to_string(), context),
            counter.max(1),
        );
    }

    /// Every `(method, from, to, context, counter)` context row in sorted order.
    pub fn iter_contexts(&self) -> impl Iterator<Item = (&str, &str, &str, u32, u32)> {
        self.contexts
            .iter()
            .map(|((m, f, t, x), &c)| (m.as_str(), f.as_str(), t.as_str(), *x, c))
    }

    /// Number of edges recorded.
    pub fn len(&self) -> usize {
        self.counters.len()
    }

    /// True when no edge is recorded.
    pub fn is_empty(&self) -> bool {
        self.counters.is_empty()
    }

    /// Every `(method, from, to, counter)` in sorted order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, &str, u32)> {
        self.counters
            .iter()
            .map(|((m, f, t), &c)| (m.as_str(), f.as_str(), t.as_str(), c))
    }

    /// Renders the file text (five columns, or six with context rows).
    pub fn to_text(&self) -> Result<String> {
        let mut totals: BTreeMap<(&str, &str), u64> = BTreeMap::new();
        for (m, f, _, c) in self.iter() {
            *totals.entry((m, f)).or_default() += u64::from(c);
        }
        let mut set_totals: BTreeMap<(&str, &str, u32), u64> = BTreeMap::new();
        for (m, f, _, x, c) in self.iter_contexts() {
            *set_totals.entry((m, f, x)).or_default() += u64::from(c);
        }
        let with_contexts = !self.contexts.is_empty();
        let mut s = String::from("# tracekit-paths edge model v1\n");
        s.push_str(if with_contexts {
            MODEL_HEADER_CONTEXTS
        } else {
            MODEL_HEADER
        });
        s.push('\n');
        let check = |names: [&str; 3]| -> Result<()> {
            match names.iter().find(|n| n.contains(['\t', '\n', '\r'])) {
                Some(n) => Err(PathError::InvalidParameter(format!(
                    "name {n:?} contains a tab or line break and cannot be written to a model file"
                ))),
                None => Ok(()),
            }
        };
        let tail = if with_contexts { "\t" } else { "" };
        for (m, f, t, c) in self.iter() {
            check([m, f, t])?;
            let p = f64::from(c) / totals[&(m, f)] as f64;
            let _ = writeln!(s, "{m}\t{f}\t{t}\t{p:.6}\t{c}{tail}");
        }
        for (m, f, t, x, c) in self.iter_contexts() {
            check([m, f, t])?;
            let p = f64::from(c) / set_totals[&(m, f, x)] as f64;
            let _ = writeln!(s, "{m}\t{f}\t{t}\t{p:.6}\t{c}\t{x}");
        }
        Ok(s)
    }

    /// Parses the file text; errors name `origin` and the line.
    pub fn from_text(text: &str, origin: &Path) -> Result<EdgeModel> {
        let bad = |line: usize, message: String| PathError::Parse {
            path: origin.to_path_buf(),
            message: format!("line {line}: {message}"),
        };
        let mut model = EdgeModel::new();
        let mut header_seen = false;
        let mut columns = 5;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            if !header_seen {
                columns = match line {
                    MODEL_HEADER => 5,
                    MODEL_HEADER_CONTEXTS => 6,
                    _ => return Err(bad(line_no, format!("expected the header {MODEL_HEADER:?}"))),
                };
                header_seen = true;
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() != columns {
                return Err(bad(
                    line_no,
                    format!("expected {columns} tab-separated columns, found {}", cols.len()),
                ));
            }
            let p: f64 = cols[3]
                .parse()
                .map_err(|_| bad(line_no, format!("probability {:?} is not a number", cols[3])))?;
            if !(0.0..=1.0).contains(&p) {
                return Err(bad(line_no, format!("probability {p} is outside [0, 1]")));
            }
            let c: u32 = cols[4]
                .parse()
                .map_err(|_| bad(line_no, format!("counter {:?} is not an integer in 1..2^32", cols[4])))?;
            if c == 0 {
                return Err(bad(line_no, "counter 0: counters start at 1".into()));
            }
            let (m, f, t) = (cols[0].to_string(), cols[1].to_string(), cols[2].to_string());
            let fresh = match cols.get(5).filter(|x| !x.is_empty()) {
                None => model.counters.insert((m, f, t), c).is_none(),
                Some(x) => {
                    let x: u32 = x
                        .parse()
                        .map_err(|_| bad(line_no, format!("context {x:?} is not an unsigned integer")))?;
                    model.contexts.insert((m, f, t, x), c).is_none()
                }
            };
            if !fresh {
                return Err(bad(line_no, "this edge is listed twice".into()));
            }
        }
        if !header_seen {
            return Err(bad(text.lines().count().max(1), "no header line".into()));
        }
        Ok(model)
    }

    /// Reads a model file.
    pub fn load(path: &Path) -> Result<EdgeModel> {
        let text = tracekit_safeio::read_text(path).map_err(PathError::from)?;
        EdgeModel::from_text(&text, path)
    }

    /// Writes a model file.
    pub fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_text()?).map_err(|error| PathError::Io {
            path: path.to_path_buf(),
            error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_roundtrip() {
        let mut m = EdgeModel::new();
        m.set_counter("m", "C", "B", 3);
        m.set_counter("m", "C", "D", 1);
        let t = m.to_text().unwrap();
        assert!(t.contains("m\tC\tB\t0.750000\t3\n"), "{t}");
        assert_eq!(EdgeModel::from_text(&t, Path::new("x")).unwrap(), m);
    }

    #[test]
    fn context_rows_roundtrip() {
        let mut m = EdgeModel::new();
        m.set_counter("m", "C", "B", 30);
        m.set_context_counter("m", "C", "B", 1, 2);
        m.set_context_counter("m", "C", "D", 1, 6);
        let t = m.to_text().unwrap();
        assert!(t.contains(&format!("{MODEL_HEADER_CONTEXTS}\n")), "{t}");
        assert!(t.contains("m\tC\tB\t1.000000\t30\t\n"), "{t}");
        assert!(t.contains("m\tC\tD\t0.750000\t6\t1\n"), "{t}");
        assert_eq!(EdgeModel::from_text(&t, Path::new("x")).unwrap(), m);
        let bad = format!("{MODEL_HEADER_CONTEXTS}\nm\tC\tB\t0.5\t3\tx\n");
        let e = EdgeModel::from_text(&bad, Path::new("x")).unwrap_err().to_string();
        assert!(e.contains("line 2: context \"x\""), "{e}");
    }

    #[test]
    fn errors_name_the_line() {
        let p = Path::new("model.tsv");
        let e = EdgeModel::from_text("# c\nmethod\tfrom\tto\tprobability\tcounter\nm\tA\tB\t0.5\n", p)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "model.tsv: line 3: expected 5 tab-separated columns, found 4");
        let e = EdgeModel::from_text("bogus\n", p).unwrap_err().to_string();
        assert!(e.contains("line 1: expected the header"), "{e}");
        let e = EdgeModel::from_text(&format!("{MODEL_HEADER}\nm\tA\tB\t0.5\t0\n"), p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2: counter 0"), "{e}");
    }
}

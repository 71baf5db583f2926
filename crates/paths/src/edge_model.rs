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

use crate::error::{PathError, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The header line of the model file.
pub const MODEL_HEADER: &str = "method\tfrom\tto\tprobability\tcounter";

/// Edge counters by `(method, from, to)` names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EdgeModel {
    counters: BTreeMap<(String, String, String), u32>,
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
        self.counters.insert(
            (method.to_string(), from.to_string(), to.to_string()),
            counter.max(1),
        );
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

    /// Renders the file text.
    pub fn to_text(&self) -> Result<String> {
        let mut totals: BTreeMap<(&str, &str), u64> = BTreeMap::new();
        for (m, f, _, c) in self.iter() {
            *totals.entry((m, f)).or_default() += u64::from(c);
        }
        let mut s = String::from("# tracekit-paths edge model v1\n");
        s.push_str(MODEL_HEADER);
        s.push('\n');
        for (m, f, t, c) in self.iter() {
            for name in [m, f, t] {
                if name.contains(['\t', '\n', '\r']) {
                    return Err(PathError::InvalidParameter(format!(
                        "name {name:?} contains a tab or line break and cannot be written to a model file"
                    )));
                }
            }
            let p = f64::from(c) / totals[&(m, f)] as f64;
            let _ = writeln!(s, "{m}\t{f}\t{t}\t{p:.6}\t{c}");
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
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            if !header_seen {
                if line != MODEL_HEADER {
                    return Err(bad(
                        line_no,
                        format!("expected the header {MODEL_HEADER:?}"),
                    ));
                }
                header_seen = true;
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() != 5 {
                return Err(bad(
                    line_no,
                    format!("expected 5 tab-separated columns, found {}", cols.len()),
                ));
            }
            let p: f64 = cols[3].parse().map_err(|_| {
                bad(
                    line_no,
                    format!("probability {:?} is not a number", cols[3]),
                )
            })?;
            if !(0.0..=1.0).contains(&p) {
                return Err(bad(line_no, format!("probability {p} is outside [0, 1]")));
            }
            let c: u32 = cols[4].parse().map_err(|_| {
                bad(
                    line_no,
                    format!("counter {:?} is not an integer in 1..2^32", cols[4]),
                )
            })?;
            if c == 0 {
                return Err(bad(line_no, "counter 0: counters start at 1".into()));
            }
            let key = (
                cols[0].to_string(),
                cols[1].to_string(),
                cols[2].to_string(),
            );
            if model.counters.insert(key, c).is_some() {
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
        let text = std::fs::read_to_string(path).map_err(|source| PathError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        EdgeModel::from_text(&text, path)
    }

    /// Writes a model file.
    pub fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_text()?).map_err(|source| PathError::Io {
            path: path.to_path_buf(),
            source,
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
    fn errors_name_the_line() {
        let p = Path::new("model.tsv");
        let e = EdgeModel::from_text(
            "# c\nmethod\tfrom\tto\tprobability\tcounter\nm\tA\tB\t0.5\n",
            p,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "model.tsv: line 3: expected 5 tab-separated columns, found 4"
        );
        let e = EdgeModel::from_text("bogus\n", p).unwrap_err().to_string();
        assert!(e.contains("line 1: expected the header"), "{e}");
        let e = EdgeModel::from_text(&format!("{MODEL_HEADER}\nm\tA\tB\t0.5\t0\n"), p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2: counter 0"), "{e}");
    }
}

//! What the problem view shows, in the shape the viewer draws it. The
//! analysis (`tracekit-analysis`) computes problems and hints; the caller
//! converts its results into a [`ProblemView`] (or implements
//! [`ProblemSolver`] so the web UI can ask for new definitions).

use serde::{Deserialize, Serialize};

/// A problem the user asks about: big-red-button presses or a method under a
/// context condition (seed 000 §5.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProblemDef {
    /// Calls to the marker method (default `brb`).
    Brb {
        /// Marker method name.
        method: String,
    },
    /// Calls to `method`, split by whether `when` holds at their start.
    Method {
        /// Method pattern (name, `Class.name`, …).
        method: String,
        /// Condition such as `Screen orientation == 1`; empty for none.
        when: String,
    },
}

impl ProblemDef {
    /// A short title such as `BRB (brb)` or `draw when Wi-Fi == off`.
    pub fn title(&self) -> String {
        match self {
            ProblemDef::Brb { method } => format!("BRB ({method})"),
            ProblemDef::Method { method, when } if when.trim().is_empty() => method.clone(),
            ProblemDef::Method { method, when } => format!("{method} when {when}"),
        }
    }
}

/// A point on a thread: an occurrence or a call of the problem's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadInstant {
    /// Time (ns, timeline clock).
    pub ts_ns: u64,
    /// Index of the thread in the session.
    pub thread: u32,
}

/// One value and how often it occurred at the occurrences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopValue {
    /// The value as text.
    pub value: String,
    /// Share of the occurrences (0..=1).
    pub share: f64,
}

/// A hint: one context item's values at the occurrences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hint {
    /// Context label.
    pub label: String,
    /// Type name (`int`, `long`, `float`, `double`, `string`).
    #[serde(rename = "type")]
    pub kind: String,
    /// How unusual the values at the occurrences are compared with the whole
    /// session (higher = more suspect), when the analysis ranks hints.
    pub score: Option<f64>,
    /// Five most frequent values (int, long, string).
    pub top_values: Option<Vec<TopValue>>,
    /// 5th percentile (float, double).
    pub p5: Option<f64>,
    /// 95th percentile (float, double).
    pub p95: Option<f64>,
    /// How unusual the values are compared with the whole session, before
    /// the time of the occurrences is taken into account.
    #[serde(default)]
    pub raw_score: Option<f64>,
    /// What is compared: `value`, `rate` (a running total's rate) or
    /// `time` (the session-time pseudo-item).
    #[serde(default, rename = "kind")]
    pub basis: Option<String>,
    /// The association is no stronger than time's.
    #[serde(default)]
    pub confounded_with_time: bool,
    /// The raw score time alone would give the item.
    #[serde(default)]
    pub expected_from_time: Option<f64>,
    /// Unit of the values shown (a rate's `B/s`), when known.
    #[serde(default)]
    pub unit: Option<String>,
    /// One line for people: what a rate or the time item shows, or why an
    /// item is confounded with time.
    #[serde(default)]
    pub note: Option<String>,
    /// Occurrences at which the item had a value.
    #[serde(default)]
    pub defined: Option<usize>,
}

/// Everything the problem view draws for one definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProblemView {
    /// The definition.
    pub def: ProblemDef,
    /// Display title.
    pub title: String,
    /// Occurrences: BRB presses, or the method's calls inside the condition.
    pub occurrences: Vec<ThreadInstant>,
    /// Where the condition holds (`[start, end)` ns, sorted); empty for BRB.
    pub intervals: Vec<(u64, u64)>,
    /// The method's calls starting inside an interval.
    pub calls_inside: Vec<ThreadInstant>,
    /// The method's calls starting outside every interval.
    pub calls_outside: Vec<ThreadInstant>,
    /// Hints, most suspect first.
    pub hints: Vec<Hint>,
}

/// Computes problem views on demand (the web UI's problem form).
pub trait ProblemSolver: Send + Sync {
    /// Evaluates a definition, or says in one sentence why it cannot.
    fn solve(&self, def: &ProblemDef) -> Result<ProblemView, String>;
}

//! Hints on context (seed 000 §5.9), ranked, and told apart from the clock.
//!
//! At every occurrence of a problem the value of each context item is looked
//! up. Int, long and string items report their five most frequent values
//! with their shares; float and double items the interval holding the middle
//! 90% of values (5th to 95th percentile, linear interpolation between
//! closest ranks).
//!
//! # What is compared
//!
//! - **Values.** Most items are compared by their value ([`HintKind::Value`]).
//! - **Rates.** A running total — declared [`CounterKind::Cumulative`] by
//!   its reader, or recognised from the data: numeric, never decreasing
//!   within a session, growing at least eight times — says by its value
//!   only how late it is. It is compared by its rate instead
//!   ([`HintKind::Rate`]): the growth over a window centred on the instant
//!   ([`HintOptions::rate_window_s`], 5 s by default) divided by the window.
//!   Near the first and last record the window is cut to the records, and
//!   the rate is defined where at least half of it remains (declared wraps
//!   and resets are undone first).
//! - **Time.** The session time (s since the session's start, timeline 0)
//!   is a pseudo-item ([`HintKind::Time`], labelled [`TIME_LABEL`]) so
//!   that a user sees when the occurrences cluster in time.
//!
//! # Scores
//!
//! Each hint has two scores in [0, 1], distances between the values at the
//! occurrences and a baseline: the Kolmogorov–Smirnov distance for numbers
//! (ordered distances matter: a drifting number has a new value at every
//! occurrence, which a category-based distance would call maximally
//! suspicious) and the total variation distance for strings, which have no
//! order. An item that never changes scores 0.
//!
//! - `raw_score` (what ranked hints before time was told apart): the baseline is the
//!   whole sessions, weighted by time — held values by how long they held,
//!   interpolated items and rates by 4,096 evenly spaced samples per session.
//!   When the occurrences cluster in time, anything that drifts with time
//!   looks as unlike the session as the real cause.
//! - `score` (what ranks): the baseline is the item at *nearby times*. Each
//!   occurrence at session time t looks at the window `[t − w/2, t + w/2]`
//!   ([`HintOptions::time_window_s`]; by default w is a quarter of the
//!   median session length) in every pooled session, at the same session
//!   time — so in one session the baseline is the item around each
//!   occurrence, and with several sessions it is also the other sessions at
//!   the matched time. Each occurrence's window carries the same weight
//!   (`1/n`, spread evenly over the window's time where the item has a value),
//!   so the baseline is what the item would look like at the occurrences if
//!   only *when* they happened mattered. An item ranks high only when it
//!   differs beyond what the time of the occurrences explains.
//! - `expected_from_time`: the distance between that nearby-times baseline
//!   and the whole sessions, i.e. the raw score time alone gives the item.
//!   An item is **confounded with time** when its association is no
//!   stronger than time's: time alone explains more of it than is left
//!   beyond time (`expected_from_time > score`), and both its raw score and
//!   `expected_from_time` are notable (at least [`CONFOUND_MIN`]). It is
//!   marked (`confounded_with_time`), explained in its note, and ranked after
//!   every item that is not.
//!
//! The time pseudo-item's `raw_score` is how far the occurrences' session
//! times are from times spread evenly over the sessions (KS against the
//! uniform distribution over each session's span, weighted by length): how
//! much they cluster. Its `score` is what of that no item explains, the
//! same question asked the other way round: for each item not confounded
//! with time that is a suspect itself (`score` at least [`CONFOUND_MIN`]),
//! each occurrence looks at the times when the item had a value
//! like its value there (the same string; a number within the same share of
//! the item's time-weighted distribution as the nearby-times window is of a
//! session, on either side), and the KS distance compares the occurrence
//! times with those times. The smallest such distance, if below the raw
//! score, is time's score, and its note names the item. So a cause that
//! explains when the occurrences happen pushes time down; when every
//! candidate is confounded (one session in which the cause and the clock
//! move together), time keeps its raw score and comes first, which is the
//! honest answer: a single session cannot tell the two apart. Pooling
//! sessions where the occurrences fall at different session times breaks
//! the confound: the nearby-times baseline then includes the other
//! sessions at the same time, the cause stands out from them, items that
//! drift alike in every session do not, and time's clustering falls.
//!
//! Hints are ranked by `score`, highest first, with confounded items after
//! the rest and ties broken by label. `tests/hint_scenarios.rs` holds the
//! method to generated scenarios (`tracekit_example::hint_scenarios`).

mod score;
mod series;

pub use score::percentile;

use crate::problems::{horizon, Occurrence};
use score::{scores, time_beyond, time_clustering, Scores};
use serde::Serialize;
use series::{declared_kinds, is_cumulative, rate_series, unwrapped, value_series, Scale, Series};
use std::collections::HashMap;
use tracekit_model::{ContextTrack, ContextType, ContextValue, CounterKind, Session};

/// Label of the session-time pseudo-item.
pub const TIME_LABEL: &str = "Session time";

/// An item is called confounded with time only when both its raw score and
/// the score time alone gives it reach this: below it, neither is an
/// association worth explaining. An item explains the session time only
/// when its own score reaches it.
pub const CONFOUND_MIN: f64 = 0.25;

/// One value and its share of the occurrences where the item was defined.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueShare {
    /// The value.
    pub value: ContextValue,
    /// Share in [0, 1].
    pub share: f64,
}

/// The statistics of one context item at the occurrences.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HintStats {
    /// Int, long and string items.
    Discrete {
        /// Up to five most frequent values.
        top_values: Vec<ValueShare>,
    },
    /// Float and double items, rates and the session time (`None` when
    /// undefined at every occurrence).
    Continuous {
        /// 5th percentile.
        p5: Option<f64>,
        /// 95th percentile.
        p95: Option<f64>,
    },
}

/// What a hint compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HintKind {
    /// The item's value.
    Value,
    /// A running total's rate of change (units per second).
    Rate,
    /// The session time pseudo-item.
    Time,
}

impl HintKind {
    /// `value`, `rate` or `time`.
    pub fn name(self) -> &'static str {
        match self {
            HintKind::Value => "value",
            HintKind::Rate => "rate",
            HintKind::Time => "time",
        }
    }
}

/// A hint about one context item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hint {
    /// The item's label.
    pub label: String,
    /// Its type name (`double` for the session time).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Values (or rates, or times) at the occurrences.
    #[serde(flatten)]
    pub stats: HintStats,
    /// What ranks: how different the values at the occurrences are from the
    /// item's values at nearby times (0–1; for the time item, its raw score).
    pub score: f64,
    /// Occurrences at which the item had a value.
    pub defined: usize,
    /// How different the values at the occurrences are from the whole sessions (0–1).
    pub raw_score: f64,
    /// What is compared: `value`, `rate` or `time`.
    #[serde(rename = "kind")]
    pub basis: HintKind,
    /// The association is no stronger than time's.
    pub confounded_with_time: bool,
    /// The raw score time alone would give the item (0–1).
    pub expected_from_time: f64,
    /// Unit of the values shown (`B/s` for a rate of bytes), when known.
    pub unit: Option<String>,
    /// One line for people: what a rate or the time item shows, or why an
    /// item is confounded with time.
    pub note: Option<String>,
}

/// Settings of the hints.
#[derive(Debug, Clone, PartialEq)]
pub struct HintOptions {
    /// Width of the window a running total's rate is measured over, centred
    /// on each instant (s).
    pub rate_window_s: f64,
    /// Width of the window of nearby times the time-adjusted score compares
    /// with, centred on each occurrence's session time (s); `None`: a quarter
    /// of the median session length.
    pub time_window_s: Option<f64>,
}

impl Default for HintOptions {
    fn default() -> HintOptions {
        HintOptions {
            rate_window_s: 5.0,
            time_window_s: None,
        }
    }
}

impl HintOptions {
    /// The window of nearby times (ns) for sessions ending at `ends`.
    pub fn time_window_ns(&self, ends: &[i64]) -> i64 {
        if let Some(w) = self.time_window_s.filter(|w| w.is_finite() && *w > 0.0) {
            return (w * 1e9) as i64;
        }
        let mut e = ends.to_vec();
        e.sort_unstable();
        e.get(e.len() / 2).map_or(1, |&m| (m / 4).max(1))
    }
}

/// Computes ranked hints for every context item of the sessions (pooled by
/// label) and the session time, with the default [`HintOptions`].
pub fn hints(sessions: &[Session], occurrences: &[Occurrence]) -> Vec<Hint> {
    hints_with(sessions, occurrences, &HintOptions::default())
}

/// Computes ranked hints with the given options.
pub fn hints_with(sessions: &[Session], occurrences: &[Occurrence], opts: &HintOptions) -> Vec<Hint> {
    let items: Vec<Vec<std::borrow::Cow<'_, ContextTrack>>> = sessions.iter().map(Session::context_items).collect();
    let mut labels: Vec<(String, ContextType)> = Vec::new();
    for s in &items {
        for t in s {
            if !labels.iter().any(|(l, _)| *l == t.label) {
                labels.push((t.label.clone(), t.kind()));
            }
        }
    }
    // Where each session's last held value stops holding.
    let ends: Vec<i64> = sessions.iter().map(horizon).collect();
    let half = (opts.time_window_ns(&ends) / 2).max(1);
    let rate_ns = ((opts.rate_window_s.max(1e-6)) * 1e9) as i64;
    let computed: Vec<(Hint, Series, Scale)> = labels
        .into_iter()
        .map(|(label, kind)| {
            let tracks: Vec<Option<&ContextTrack>> = items
                .iter()
                .map(|s| s.iter().map(|t| &**t).find(|t| t.label == label && t.kind() == kind))
                .collect();
            let declared = declared_kinds(sessions, &label);
            let kinds: Vec<Option<CounterKind>> = declared.iter().map(|d| d.map(|x| x.0)).collect();
            if is_cumulative(&tracks, &kinds) {
                rate_hint(
                    label,
                    kind,
                    &tracks,
                    &declared,
                    occurrences,
                    rate_ns,
                    half,
                    opts.rate_window_s,
                )
            } else {
                value_hint(label, kind, &tracks, occurrences, &ends, half)
            }
        })
        .collect();
    let mut median_end = ends.clone();
    median_end.sort_unstable();
    let median_end = median_end.get(median_end.len() / 2).map_or(1, |&e| e.max(1));
    let share = (half as f64 / median_end as f64).clamp(0.01, 0.5);
    let explained = computed
        .iter()
        .filter(|(h, _, _)| !h.confounded_with_time && h.score >= CONFOUND_MIN)
        .filter_map(|(h, s, scale)| time_beyond(s, *scale, share).map(|d| (d, h.label.as_str())))
        .min_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)))
        .map(|(d, l)| (d, l.to_owned()));
    let mut out: Vec<Hint> = computed.into_iter().map(|x| x.0).collect();
    // The time item is shown beside context items; with none, there are no hints.
    if !out.is_empty() {
        out.push(time_hint(occurrences, &ends, explained));
    }
    out.sort_by(|a, b| {
        a.confounded_with_time
            .cmp(&b.confounded_with_time)
            .then(b.score.total_cmp(&a.score))
            .then_with(|| a.label.cmp(&b.label))
    });
    out
}

fn finish(mut h: Hint, s: Scores) -> Hint {
    h.score = s.adjusted;
    h.raw_score = s.raw;
    h.expected_from_time = s.from_time;
    h.confounded_with_time = s.raw >= CONFOUND_MIN && s.from_time >= CONFOUND_MIN && s.from_time > s.adjusted;
    if h.confounded_with_time {
        let why = format!(
            "confounded with time: its values at the occurrences are what their times alone predict (raw {:.2}, time alone {:.2})",
            s.raw, s.from_time
        );
        h.note = Some(match h.note.take() {
            Some(n) => format!("{why}; {n}"),
            None => why,
        });
    }
    h
}

fn value_hint(
    label: String,
    kind: ContextType,
    tracks: &[Option<&ContextTrack>],
    occurrences: &[Occurrence],
    ends: &[i64],
    half: i64,
) -> (Hint, Series, Scale) {
    let (series, values) = value_series(tracks, occurrences, ends);
    let scale = if kind == ContextType::String {
        Scale::Categorical
    } else {
        Scale::Ordered
    };
    let stats = if kind.is_continuous() {
        continuous_stats(values.iter().filter_map(ContextValue::as_f64))
    } else {
        discrete_stats(&values)
    };
    let unit = tracks.iter().flatten().find_map(|t| t.unit.clone());
    let h = Hint {
        label,
        kind: kind.name(),
        stats,
        score: 0.0,
        defined: values.len(),
        raw_score: 0.0,
        basis: HintKind::Value,
        confounded_with_time: false,
        expected_from_time: 0.0,
        unit,
        note: None,
    };
    let h = finish(h, scores(&series, scale, half));
    (h, series, scale)
}

#[allow(clippy::too_many_arguments)]
fn rate_hint(
    label: String,
    kind: ContextType,
    tracks: &[Option<&ContextTrack>],
    declared: &[Option<(CounterKind, Option<f64>)>],
    occurrences: &[Occurrence],
    rate_ns: i64,
    half: i64,
    rate_window_s: f64,
) -> (Hint, Series, Scale) {
    let totals: Vec<Option<ContextTrack>> = tracks
        .iter()
        .zip(declared)
        .map(|(t, d)| t.map(|t| unwrapped(t, d.and_then(|d| d.1))))
        .collect();
    let series: Series = rate_series(&totals, occurrences, rate_ns);
    let unit = tracks.iter().flatten().find_map(|t| t.unit.clone());
    let per_s = unit.as_deref().map_or("per s".to_owned(), |u| format!("{u}/s"));
    let h = Hint {
        label,
        kind: kind.name(),
        stats: continuous_stats(series.values.iter().copied()),
        score: 0.0,
        defined: series.values.len(),
        raw_score: 0.0,
        basis: HintKind::Rate,
        confounded_with_time: false,
        expected_from_time: 0.0,
        unit: Some(per_s.clone()),
        note: Some(format!(
            "a running total, compared by its rate ({per_s} over {} s windows), not its value",
            fmt_s(rate_window_s)
        )),
    };
    let h = finish(h, scores(&series, Scale::Ordered, half));
    (h, series, Scale::Ordered)
}

/// The session-time pseudo-item. Its raw score is how the occurrences
/// cluster in time; its score what of that no item explains: `explained` is
/// the smallest association of time beyond an item not confounded with time.
fn time_hint(occurrences: &[Occurrence], ends: &[i64], explained: Option<(f64, String)>) -> Hint {
    let times: Vec<f64> = occurrences.iter().map(|o| o.ts_ns as f64 / 1e9).collect();
    let raw = time_clustering(&times, ends);
    let beyond = explained.filter(|(d, _)| *d < raw);
    let lo = times.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (emin, emax) = ends.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &e| {
        let e = e as f64 / 1e9;
        (a.min(e), b.max(e))
    });
    let span = if ends.len() > 1 && emax - emin > 0.05 {
        format!("{} sessions {emin:.1}–{emax:.1} s long", ends.len())
    } else if ends.len() > 1 {
        format!("{} sessions {emax:.1} s long", ends.len())
    } else {
        format!("a {emax:.1} s session")
    };
    let mut note = if times.is_empty() {
        "s since the session's start".to_owned()
    } else {
        format!("s since the session's start: the occurrences fall at {lo:.1}–{hi:.1} s of {span}")
    };
    if let Some((d, label)) = &beyond {
        note.push_str(&format!(
            "; beyond {label}, the item that best explains when they happen, time scores {d:.2}"
        ));
    }
    Hint {
        label: TIME_LABEL.to_owned(),
        kind: ContextType::Double.name(),
        stats: continuous_stats(times.iter().copied()),
        score: beyond.as_ref().map_or(raw, |b| b.0),
        defined: times.len(),
        raw_score: raw,
        basis: HintKind::Time,
        confounded_with_time: false,
        expected_from_time: raw,
        unit: Some("s".into()),
        note: Some(note),
    }
}

/// Seconds as short text: `5`, `2.5`.
fn fmt_s(s: f64) -> String {
    let t = format!("{s:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn key(v: &ContextValue) -> String {
    v.to_string()
}

/// 5th and 95th percentiles of the finite values.
fn continuous_stats(values: impl Iterator<Item = f64>) -> HintStats {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    HintStats::Continuous {
        p5: percentile(&v, 0.05),
        p95: percentile(&v, 0.95),
    }
}

/// Up to five most frequent values at the occurrences, first seen first on ties.
fn discrete_stats(values: &[ContextValue]) -> HintStats {
    let mut counts: HashMap<String, (usize, ContextValue, usize)> = HashMap::new();
    for (i, v) in values.iter().enumerate() {
        counts.entry(key(v)).or_insert((0, v.clone(), i)).0 += 1;
    }
    let n = values.len().max(1) as f64;
    let mut top: Vec<(usize, ContextValue, usize)> = counts.into_values().collect();
    top.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(&b.2)));
    let top_values = top
        .into_iter()
        .take(5)
        .map(|(c, value, _)| ValueShare {
            value,
            share: c as f64 / n,
        })
        .collect();
    HintStats::Discrete { top_values }
}

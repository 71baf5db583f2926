//! `context.jsonl`, the context sampler's output: a first line saying which
//! sources were present, then one JSON line per sample, each timestamped on
//! `CLOCK_MONOTONIC` before its source was read.

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use std::path::Path;
use tracekit_model::{ContextTrack, ContextValue, CounterKind, CounterTrack, Session};

/// One line of `context.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleLine {
    /// `CLOCK_MONOTONIC` ns taken before the source was read.
    pub mono_ns: u64,
    /// Context item label.
    pub label: String,
    /// Unit of the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The value.
    pub value: SampleValue,
    /// Set for a numeric series that belongs in a counter track (power
    /// sources) rather than a context item: how it behaves between samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<CounterKind>,
    /// For a cumulative counter, the value at which it wraps to 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrap: Option<f64>,
}

/// A sampled value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleValue {
    /// Integer.
    Long(i64),
    /// Floating point.
    Double(f64),
    /// Text.
    Text(String),
}

/// First line of `context.jsonl`: which sources were found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourcesLine {
    /// Sources read.
    pub present: Vec<String>,
    /// Sources asked for but absent on this machine.
    pub absent: Vec<String>,
    /// Sources that exist but could not be read, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Adds the samples of a `context.jsonl` file to a session as context tracks.
pub fn load_samples(path: &Path, anchor_mono_ns: u64, s: &mut Session) -> anyhow::Result<()> {
    let text = tracekit_safeio::read_text(path)?;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if i == 0 {
            if let Ok(src) = serde_json::from_str::<SourcesLine>(line) {
                s.properties.push(("context-sources".into(), src.present.join(",")));
                if !src.absent.is_empty() {
                    s.properties.push(("context-absent".into(), src.absent.join(",")));
                }
                for n in src.notes {
                    s.properties.push(("context-note".into(), n));
                }
                continue;
            }
        }
        let l: SampleLine =
            serde_json::from_str(line).with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        if let (Some(kind), Some(x)) = (l.counter, numeric(&l.value)) {
            let t = l.mono_ns as i64 - anchor_mono_ns as i64;
            match s.counters.iter_mut().find(|c| c.name == l.label) {
                Some(c) => c.push(t, x),
                None => {
                    let mut c = CounterTrack::new(&l.label, l.unit.as_deref()).with_kind(kind);
                    c.wraps_at = l.wrap;
                    c.push(t, x);
                    s.counters.push(c);
                }
            }
            continue;
        }
        let v = match l.value {
            SampleValue::Long(v) => ContextValue::Long(v),
            SampleValue::Double(v) => ContextValue::Double(v),
            SampleValue::Text(v) => ContextValue::Str(v),
        };
        let idx = match s
            .context
            .iter()
            .position(|t| t.label == l.label && t.kind() == v.kind())
        {
            Some(i) => i,
            None => {
                let mut t = ContextTrack::new(&l.label, v.kind());
                t.unit = l.unit.clone();
                s.context.push(t);
                s.context.len() - 1
            }
        };
        s.context[idx].push(l.mono_ns as i64 - anchor_mono_ns as i64, v);
    }
    Ok(())
}

fn numeric(v: &SampleValue) -> Option<f64> {
    match *v {
        SampleValue::Long(x) => Some(x as f64),
        SampleValue::Double(x) => Some(x),
        SampleValue::Text(_) => None,
    }
}

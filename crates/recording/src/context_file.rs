//! `context.jsonl`, the context sampler's output: a first line saying which
//! sources were present, then one JSON line per sample, each timestamped on
//! `CLOCK_MONOTONIC` before its source was read.

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use std::path::Path;
use tracekit_model::{ContextTrack, ContextValue, Session};

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
                continue;
            }
        }
        let l: SampleLine =
            serde_json::from_str(line).with_context(|| format!("{}: line {}", path.display(), i + 1))?;
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

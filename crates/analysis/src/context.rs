//! The value of context items at an instant (seed 000 §6.6).
//!
//! Int, long and string items hold their last recorded value (step
//! semantics) and are undefined before their first record. Float and double
//! items are interpolated linearly between the two neighbouring records and
//! are undefined before the first and after the last record.

use serde::Serialize;
use tracekit_model::{ContextTrack, ContextValue, Session};

/// The value of `track` at time `t` (ns on the session timeline), or `None`
/// when it is undefined there.
pub fn value_at(track: &ContextTrack, t: i64) -> Option<ContextValue> {
    let times = &track.times;
    // Index of the last record at or before t.
    let after = times.partition_point(|&x| x <= t);
    if after == 0 {
        return None;
    }
    let i = after - 1;
    if !track.kind().is_continuous() {
        return Some(track.samples.get(i));
    }
    if times[i] == t {
        return Some(track.samples.get(i));
    }
    let j = after;
    if j >= times.len() {
        return None;
    }
    let (t0, t1) = (times[i] as f64, times[j] as f64);
    let v0 = track.samples.get_f64(i)?;
    let v1 = track.samples.get_f64(j)?;
    let v = v0 + (t as f64 - t0) / (t1 - t0) * (v1 - v0);
    Some(match track.samples.get(i) {
        ContextValue::Float(_) => ContextValue::Float(v as f32),
        _ => ContextValue::Double(v),
    })
}

/// One context item's value in a [`snapshot`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextReading {
    /// Item label.
    pub label: String,
    /// `int`, `long`, `float`, `double` or `string`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The value, `None` when undefined at that time.
    pub value: Option<ContextValue>,
}

/// The value of every context item of `session` (counters included) at time `t`.
pub fn snapshot(session: &Session, t: i64) -> Vec<ContextReading> {
    session
        .context_items()
        .iter()
        .map(|tr| ContextReading {
            label: tr.label.clone(),
            kind: tr.kind().name(),
            value: value_at(tr, t),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::ContextType;

    #[test]
    fn step_and_interpolation() {
        let mut s = ContextTrack::new("orientation", ContextType::Int);
        s.push(10, ContextValue::Int(0));
        s.push(20, ContextValue::Int(1));
        assert_eq!(value_at(&s, 9), None);
        assert_eq!(value_at(&s, 10), Some(ContextValue::Int(0)));
        assert_eq!(value_at(&s, 19), Some(ContextValue::Int(0)));
        assert_eq!(value_at(&s, 1000), Some(ContextValue::Int(1)));

        let mut d = ContextTrack::new("since change", ContextType::Double);
        d.push(0, ContextValue::Double(1.0));
        d.push(100, ContextValue::Double(3.0));
        assert_eq!(value_at(&d, -1), None);
        assert_eq!(value_at(&d, 25), Some(ContextValue::Double(1.5)));
        assert_eq!(value_at(&d, 100), Some(ContextValue::Double(3.0)));
        assert_eq!(value_at(&d, 101), None);

        let mut f = ContextTrack::new("cpu", ContextType::Float);
        f.push(0, ContextValue::Float(0.0));
        f.push(10, ContextValue::Float(1.0));
        assert_eq!(value_at(&f, 5), Some(ContextValue::Float(0.5)));
    }
}

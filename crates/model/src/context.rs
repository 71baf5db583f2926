//! Typed context tracks (seed 000's context log) and numeric counter tracks.

use serde::{Deserialize, Serialize};

/// The type of a context item, numbered as in the `.clog` format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextType {
    /// 32-bit signed integer.
    Int = 1,
    /// 64-bit signed integer.
    Long = 2,
    /// 32-bit float.
    Float = 3,
    /// 64-bit float.
    Double = 4,
    /// Text.
    String = 5,
}

impl ContextType {
    /// The `.clog` type code (1..=5).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The type for a `.clog` type code.
    pub fn from_code(code: u32) -> Option<ContextType> {
        Some(match code {
            1 => ContextType::Int,
            2 => ContextType::Long,
            3 => ContextType::Float,
            4 => ContextType::Double,
            5 => ContextType::String,
            _ => return None,
        })
    }

    /// Lower-case name: `int`, `long`, `float`, `double`, `string`.
    pub fn name(self) -> &'static str {
        match self {
            ContextType::Int => "int",
            ContextType::Long => "long",
            ContextType::Float => "float",
            ContextType::Double => "double",
            ContextType::String => "string",
        }
    }

    /// Parses [`ContextType::name`].
    pub fn from_name(s: &str) -> Option<ContextType> {
        Some(match s {
            "int" => ContextType::Int,
            "long" => ContextType::Long,
            "float" => ContextType::Float,
            "double" => ContextType::Double,
            "string" => ContextType::String,
            _ => return None,
        })
    }

    /// Float and double values are interpolated; the others hold until the next record.
    pub fn is_continuous(self) -> bool {
        matches!(self, ContextType::Float | ContextType::Double)
    }
}

/// One context value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ContextValue {
    /// An int value.
    Int(i32),
    /// A long value.
    Long(i64),
    /// A float value.
    Float(f32),
    /// A double value.
    Double(f64),
    /// A string value.
    Str(String),
}

impl ContextValue {
    /// The value's type.
    pub fn kind(&self) -> ContextType {
        match self {
            ContextValue::Int(_) => ContextType::Int,
            ContextValue::Long(_) => ContextType::Long,
            ContextValue::Float(_) => ContextType::Float,
            ContextValue::Double(_) => ContextType::Double,
            ContextValue::Str(_) => ContextType::String,
        }
    }

    /// Numeric value as f64 (`None` for strings).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            ContextValue::Int(v) => Some(v as f64),
            ContextValue::Long(v) => Some(v as f64),
            ContextValue::Float(v) => Some(v as f64),
            ContextValue::Double(v) => Some(v),
            ContextValue::Str(_) => None,
        }
    }
}

impl std::fmt::Display for ContextValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContextValue::Int(v) => write!(f, "{v}"),
            ContextValue::Long(v) => write!(f, "{v}"),
            ContextValue::Float(v) => write!(f, "{v}"),
            ContextValue::Double(v) => write!(f, "{v}"),
            ContextValue::Str(v) => f.write_str(v),
        }
    }
}

/// The samples of one context track, one typed column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "values")]
pub enum ContextSamples {
    /// int values.
    Int(Vec<i32>),
    /// long values.
    Long(Vec<i64>),
    /// float values.
    Float(Vec<f32>),
    /// double values.
    Double(Vec<f64>),
    /// string values.
    String(Vec<String>),
}

impl ContextSamples {
    /// An empty column of the given type.
    pub fn empty(kind: ContextType) -> ContextSamples {
        match kind {
            ContextType::Int => ContextSamples::Int(Vec::new()),
            ContextType::Long => ContextSamples::Long(Vec::new()),
            ContextType::Float => ContextSamples::Float(Vec::new()),
            ContextType::Double => ContextSamples::Double(Vec::new()),
            ContextType::String => ContextSamples::String(Vec::new()),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            ContextSamples::Int(v) => v.len(),
            ContextSamples::Long(v) => v.len(),
            ContextSamples::Float(v) => v.len(),
            ContextSamples::Double(v) => v.len(),
            ContextSamples::String(v) => v.len(),
        }
    }

    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at index `i`.
    pub fn get(&self, i: usize) -> ContextValue {
        match self {
            ContextSamples::Int(v) => ContextValue::Int(v[i]),
            ContextSamples::Long(v) => ContextValue::Long(v[i]),
            ContextSamples::Float(v) => ContextValue::Float(v[i]),
            ContextSamples::Double(v) => ContextValue::Double(v[i]),
            ContextSamples::String(v) => ContextValue::Str(v[i].clone()),
        }
    }

    /// Numeric value at `i` as f64 (`None` for strings).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        match self {
            ContextSamples::Int(v) => Some(v[i] as f64),
            ContextSamples::Long(v) => Some(v[i] as f64),
            ContextSamples::Float(v) => Some(v[i] as f64),
            ContextSamples::Double(v) => Some(v[i]),
            ContextSamples::String(_) => None,
        }
    }
}

/// A context item over time: a label, a type and its records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextTrack {
    /// Label shown to users (the `.clog` label).
    pub label: String,
    /// Unit, when known (`%`, `mV`, `s`, …).
    pub unit: Option<String>,
    /// Timestamps in ns relative to the session anchor (may be negative when
    /// logging started before tracing), non-decreasing.
    pub times: Vec<i64>,
    /// Values, one per timestamp.
    pub samples: ContextSamples,
}

impl ContextTrack {
    /// An empty track.
    pub fn new(label: impl Into<String>, kind: ContextType) -> ContextTrack {
        ContextTrack {
            label: label.into(),
            unit: None,
            times: Vec::new(),
            samples: ContextSamples::empty(kind),
        }
    }

    /// The track's value type.
    pub fn kind(&self) -> ContextType {
        match self.samples {
            ContextSamples::Int(_) => ContextType::Int,
            ContextSamples::Long(_) => ContextType::Long,
            ContextSamples::Float(_) => ContextType::Float,
            ContextSamples::Double(_) => ContextType::Double,
            ContextSamples::String(_) => ContextType::String,
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// True when the track has no records.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Appends a record. Returns `false` (and appends nothing) when the
    /// value's type differs from the track's.
    pub fn push(&mut self, time_ns: i64, value: ContextValue) -> bool {
        match (&mut self.samples, value) {
            (ContextSamples::Int(v), ContextValue::Int(x)) => v.push(x),
            (ContextSamples::Long(v), ContextValue::Long(x)) => v.push(x),
            (ContextSamples::Float(v), ContextValue::Float(x)) => v.push(x),
            (ContextSamples::Double(v), ContextValue::Double(x)) => v.push(x),
            (ContextSamples::String(v), ContextValue::Str(x)) => v.push(x),
            _ => return false,
        }
        self.times.push(time_ns);
        true
    }

    /// Adds `delta_ns` to every timestamp (used to line up two files).
    pub fn shift(&mut self, delta_ns: i64) {
        for t in &mut self.times {
            *t += delta_ns;
        }
    }
}

/// How a counter's value behaves between its samples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterKind {
    /// A level that holds until the next sample (CPU frequency, idle state,
    /// a `C|` counter an app sets).
    #[default]
    Level,
    /// A continuous quantity sampled now and then (voltage, current, power,
    /// temperature): linear between samples.
    Sampled,
    /// A running total that only grows, apart from wrap-around or reset
    /// (energy counters, bytes transferred): its rate is what varies.
    Cumulative,
}

/// A numeric series over time (power, voltage, CPU frequency, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterTrack {
    /// Name shown to users.
    pub name: String,
    /// Unit (`W`, `V`, `A`, `Hz`, …).
    pub unit: Option<String>,
    /// Process the counter belongs to, if it is per process.
    pub pid: Option<u32>,
    /// CPU the counter belongs to, if it is per CPU (frequency, idle state).
    #[serde(default)]
    pub cpu: Option<u32>,
    /// How the value behaves between samples.
    #[serde(default)]
    pub kind: CounterKind,
    /// For a cumulative counter that wraps (RAPL's `energy_uj` at
    /// `max_energy_range_uj`), the value at which it wraps to 0, in the
    /// track's unit. (A reader that cannot set it may give the session
    /// property [`crate::power::wrap_range_key`] instead.)
    #[serde(default)]
    pub wraps_at: Option<f64>,
    /// Timestamps in ns relative to the session anchor, non-decreasing.
    pub times: Vec<i64>,
    /// Values, one per timestamp.
    pub values: Vec<f64>,
}

impl CounterTrack {
    /// An empty counter track.
    pub fn new(name: impl Into<String>, unit: Option<&str>) -> CounterTrack {
        CounterTrack {
            name: name.into(),
            unit: unit.map(str::to_owned),
            pid: None,
            cpu: None,
            kind: CounterKind::Level,
            wraps_at: None,
            times: Vec::new(),
            values: Vec::new(),
        }
    }

    /// The same track with another [`CounterKind`].
    pub fn with_kind(mut self, kind: CounterKind) -> CounterTrack {
        self.kind = kind;
        self
    }

    /// Appends a sample.
    pub fn push(&mut self, time_ns: i64, value: f64) {
        self.times.push(time_ns);
        self.values.push(value);
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// True when the track has no samples.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The track as a context item, so conditions and hints can use it:
    /// a level whose values are all whole numbers becomes a `long` item
    /// (held until the next sample), anything else a `double` item
    /// (interpolated linearly). The label is the counter's name.
    pub fn to_context(&self) -> ContextTrack {
        let whole = self.values.iter().all(|v| v.fract() == 0.0 && v.abs() < 9.0e15);
        let samples = if self.kind == CounterKind::Level && whole {
            ContextSamples::Long(self.values.iter().map(|&v| v as i64).collect())
        } else {
            ContextSamples::Double(self.values.clone())
        };
        ContextTrack {
            label: self.name.clone(),
            unit: self.unit.clone(),
            times: self.times.clone(),
            samples,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_push_rejects_mismatch() {
        let mut t = ContextTrack::new("Screen orientation", ContextType::Int);
        assert!(t.push(0, ContextValue::Int(1)));
        assert!(!t.push(5, ContextValue::Str("x".into())));
        assert_eq!(t.len(), 1);
        t.shift(10);
        assert_eq!(t.times, vec![10]);
        assert_eq!(t.samples.get(0).to_string(), "1");
        for code in 1..=5 {
            let k = ContextType::from_code(code).unwrap();
            assert_eq!(k.code() as u32, code);
            assert_eq!(ContextType::from_name(k.name()), Some(k));
        }
        assert_eq!(ContextType::from_code(6), None);
    }

    #[test]
    fn counters_become_context_items() {
        let mut c = CounterTrack::new("cpu0 freq", Some("kHz"));
        c.push(0, 300000.0);
        c.push(10, 1200000.0);
        let t = c.to_context();
        assert_eq!(t.kind(), ContextType::Long);
        assert_eq!(t.unit.as_deref(), Some("kHz"));
        let mut p = CounterTrack::new("power", Some("W")).with_kind(CounterKind::Sampled);
        p.push(0, 1.0);
        assert_eq!(p.to_context().kind(), ContextType::Double);
        let mut f = CounterTrack::new("level", None);
        f.push(0, 0.5);
        assert_eq!(f.to_context().kind(), ContextType::Double);
    }
}

//! The context log (`.clog`) of seed 000: which context items a device
//! logged, and every change of their values, on the same wall clock as the
//! Android method trace it accompanies.
//!
//! A file is a text *key part* (`*version`, `*logs`, `*end`) followed by a
//! *data part*. The data part is either the seed's binary form (written by
//! Java's `DataOutputStream`, so big-endian) or tracekit's documented text
//! variant (see [`text`]). [`read`] accepts both; [`write_binary`] and
//! [`write_text`] produce them.
//!
//! ```
//! use tracekit_clog::{ContextLog, LogDef, Record, read, write_binary};
//! use tracekit_model::{ContextType, ContextValue};
//! let log = ContextLog {
//!     version: 1,
//!     start_unix_us: 1_700_000_000_000_000,
//!     defs: vec![LogDef { id: 0, kind: ContextType::Int, label: "Screen orientation".into() }],
//!     records: vec![Record { log_id: 0, delta_us: 1_500, value: ContextValue::Int(1) }],
//! };
//! let mut bytes = Vec::new();
//! write_binary(&log, &mut bytes).unwrap();
//! let back = read(&bytes).unwrap();
//! assert_eq!(back.log, log);
//! let tracks = back.log.to_tracks();
//! assert_eq!(tracks[0].times, vec![1_500_000]);
//! ```

mod binary;
mod error;
mod key;
mod mutf8;
pub mod text;

pub use error::Error;

use tracekit_model::{ContextTrack, ContextType, ContextValue};

/// True when `head` (the first bytes of a file) looks like a context log:
/// a `*version` key part whose next section is `*logs` (an Android method
/// trace's key part goes on to `key=value` lines and `*threads`).
pub fn sniff(head: &[u8]) -> bool {
    let mut lines = head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    if lines.next() != Some(&b"*version"[..]) {
        return false;
    }
    lines
        .find(|l| l.starts_with(b"*"))
        .is_some_and(|l| l == b"*logs" || l == b"*end")
}

/// The magic number that opens the binary data part ("SLOW").
pub const MAGIC: u32 = 0x574F_4C53;

/// One context item declared in the key part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogDef {
    /// Log id used by records (ids form the series 0..n).
    pub id: u32,
    /// Value type.
    pub kind: ContextType,
    /// Label shown to users.
    pub label: String,
}

/// One record: a new value of one context item.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Which item changed.
    pub log_id: u32,
    /// Microseconds since the log's start.
    pub delta_us: i64,
    /// The new value.
    pub value: ContextValue,
}

/// A whole context log, records in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextLog {
    /// File version (1).
    pub version: u32,
    /// Start of logging, µs since the Unix epoch.
    pub start_unix_us: i64,
    /// Declared context items, in key-part order.
    pub defs: Vec<LogDef>,
    /// Records in file order.
    pub records: Vec<Record>,
}

/// Which data part a file had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataForm {
    /// Seed 000's big-endian binary data.
    Binary,
    /// tracekit's text variant.
    Text,
}

/// What [`read`] returns: the log, its form, and what had to be repaired.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOutcome {
    /// The records that could be read.
    pub log: ContextLog,
    /// Binary or text data part.
    pub form: DataForm,
    /// A truncated last record was dropped at this byte offset (the file
    /// ended mid-record, as it does when logging is cut off).
    pub truncated_at: Option<u64>,
}

impl ContextLog {
    /// The definition of a log id.
    pub fn def(&self, id: u32) -> Option<&LogDef> {
        self.defs.iter().find(|d| d.id == id)
    }

    /// Converts to model tracks (one per definition, in id order) with
    /// timestamps in ns since the log's start.
    pub fn to_tracks(&self) -> Vec<ContextTrack> {
        let mut defs: Vec<&LogDef> = self.defs.iter().collect();
        defs.sort_by_key(|d| d.id);
        let mut tracks: Vec<ContextTrack> = defs
            .iter()
            .map(|d| ContextTrack::new(d.label.clone(), d.kind))
            .collect();
        let slot: std::collections::HashMap<u32, usize> = defs.iter().enumerate().map(|(i, d)| (d.id, i)).collect();
        for r in &self.records {
            if let Some(&i) = slot.get(&r.log_id) {
                tracks[i].push(r.delta_us.saturating_mul(1000), r.value.clone());
            }
        }
        for t in &mut tracks {
            sort_track(t);
        }
        tracks
    }

    /// Builds a log from model tracks whose timestamps are ns since `start_unix_us`.
    /// Records are ordered by time (ties by log id); timestamps are rounded down to µs.
    pub fn from_tracks(start_unix_us: i64, tracks: &[ContextTrack]) -> ContextLog {
        let defs: Vec<LogDef> = tracks
            .iter()
            .enumerate()
            .map(|(i, t)| LogDef {
                id: i as u32,
                kind: t.kind(),
                label: t.label.clone(),
            })
            .collect();
        let mut records: Vec<Record> = Vec::new();
        for (i, t) in tracks.iter().enumerate() {
            for j in 0..t.len() {
                records.push(Record {
                    log_id: i as u32,
                    delta_us: t.times[j].div_euclid(1000),
                    value: t.samples.get(j),
                });
            }
        }
        records.sort_by_key(|r| (r.delta_us, r.log_id));
        ContextLog {
            version: 1,
            start_unix_us,
            defs,
            records,
        }
    }
}

/// Stable sort of a track by time, keeping the order of equal timestamps.
fn sort_track(t: &mut ContextTrack) {
    if t.times.windows(2).all(|w| w[0] <= w[1]) {
        return;
    }
    let mut idx: Vec<usize> = (0..t.len()).collect();
    idx.sort_by_key(|&i| t.times[i]);
    let mut sorted = ContextTrack::new(t.label.clone(), t.kind());
    sorted.unit = t.unit.clone();
    for i in idx {
        sorted.push(t.times[i], t.samples.get(i));
    }
    *t = sorted;
}

/// Reads a `.clog` file from memory (binary or text data part).
pub fn read(bytes: &[u8]) -> Result<ReadOutcome, Error> {
    let (key, data_at) = key::parse(bytes)?;
    let rest = &bytes[data_at..];
    if rest.len() >= 4 && u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) == MAGIC {
        binary::read_data(key, bytes, data_at)
    } else {
        text::read_data(key, bytes, data_at)
    }
}

/// Writes the key part and the binary data part of seed 000.
pub fn write_binary(log: &ContextLog, out: &mut impl std::io::Write) -> std::io::Result<()> {
    key::write(log, out)?;
    binary::write_data(log, out)
}

/// Writes the key part and tracekit's text data part.
pub fn write_text(log: &ContextLog, out: &mut impl std::io::Write) -> std::io::Result<()> {
    key::write(log, out)?;
    text::write_data(log, out)
}

/// The parsed key part, before any data.
#[derive(Debug, Clone)]
pub(crate) struct KeyPart {
    pub version: u32,
    pub defs: Vec<LogDef>,
}

impl KeyPart {
    pub(crate) fn kind_of(&self, id: u32) -> Option<ContextType> {
        self.defs.iter().find(|d| d.id == id).map(|d| d.kind)
    }
}

#[cfg(test)]
mod sniff_tests {
    #[test]
    fn tells_context_logs_from_traces() {
        assert!(super::sniff(b"*version\n1\n1700000000000000\n*logs\n"));
        assert!(!super::sniff(b"*version\n3\nclock=dual\n*threads\n"));
        assert!(!super::sniff(b"SLOW"));
    }
}

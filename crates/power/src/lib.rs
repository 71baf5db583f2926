//! Readers of power-measurement files into tracekit's model.
//!
//! Each reader fills a [`Session`] with counter tracks (and, where the file
//! says, the battery-status context item) under the names and SI units of
//! [`tracekit_model::power`], so the energy analysis finds them whatever
//! file they came from:
//!
//! - **Trepn Profiler CSV** ([`Format::Trepn`]): preamble, a header with a
//!   `Time [ms]` column per series and units in brackets, a statistics
//!   block at the end;
//! - **BattOr text** ([`Format::Battor`]): `# BattOr` header lines, then
//!   `ms mA mV` rows;
//! - **Battery Historian's power-monitor file** ([`Format::PowerMonitor`]):
//!   `unix_seconds amps` per line;
//! - **`dumpsys batterystats`** ([`Format::Batterystats`]): its battery
//!   history (level, voltage, temperature, charge, status); the rest of the
//!   dump is counted, not read.
//!
//! Beside measurements, [`read_profile_path`] reads a device's Android
//! `power_profile.xml` (the per-component currents power models use) into
//! a [`tracekit_model::power_profile::PowerProfile`], and
//! [`write_profile`] writes one (a fitted model, for instance).
//!
//! Readers never panic on bad input: errors name the file and the line
//! (and the byte offset where it starts). A file cut inside its last line
//! keeps every complete line before the cut and notes the repair. Current
//! keeps the sign its source gave it; a reader whose source documents the
//! sign says so under [`tracekit_model::power::CURRENT_SIGN_PROPERTY`].

mod batterystats;
mod battor;
mod error;
mod lines;
mod powermonitor;
mod profile_xml;
mod trepn;

pub use error::Error;
pub use profile_xml::{
    read_profile_bytes, read_profile_path, sniff_profile, write_profile, ProfileRead, MAX_PROFILE_BYTES,
};
use std::path::Path;
use tracekit_model::Session;

/// Largest file [`read_path`] reads (a BattOr capture of an hour at 10 kHz
/// is about 0.7 GB).
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// The power file formats this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Qualcomm Trepn Profiler's CSV export.
    Trepn,
    /// BattOr power-monitor text.
    Battor,
    /// Battery Historian's power-monitor file (`unix_seconds amps`).
    PowerMonitor,
    /// `dumpsys batterystats` output (its battery history).
    Batterystats,
}

impl Format {
    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Trepn => "Trepn Profiler CSV",
            Format::Battor => "BattOr text",
            Format::PowerMonitor => "power-monitor file",
            Format::Batterystats => "batterystats dump",
        }
    }
}

/// The format of a file whose first bytes (up to 64 KiB) are `head`.
pub fn detect(head: &[u8]) -> Option<Format> {
    if battor::sniff(head) {
        Some(Format::Battor)
    } else if powermonitor::sniff(head) {
        Some(Format::PowerMonitor)
    } else if trepn::sniff(head) {
        Some(Format::Trepn)
    } else if batterystats::sniff(head) {
        Some(Format::Batterystats)
    } else {
        None
    }
}

/// True when `head` (the first ≤ 64 KiB of a file) is a power file this
/// crate reads.
pub fn sniff(head: &[u8]) -> bool {
    detect(head).is_some()
}

/// Reads a power file from memory; `name` is used in errors and as the
/// session's name.
pub fn read_bytes(bytes: &[u8], name: &str) -> Result<Session, Error> {
    let head = &bytes[..bytes.len().min(64 << 10)];
    match detect(head) {
        Some(Format::Trepn) => trepn::read(bytes, name),
        Some(Format::Battor) => battor::read(bytes, name),
        Some(Format::PowerMonitor) => powermonitor::read(bytes, name),
        Some(Format::Batterystats) => batterystats::read(bytes, name),
        None => Err(Error::Unrecognised { file: name.to_owned() }),
    }
}

/// The bytes of `path` and its displayed name, refusing anything but a
/// regular file (a FIFO or `/dev/zero` could block or never end) and files
/// over `limit` bytes.
pub(crate) fn read_regular(path: &Path, limit: u64) -> Result<(Vec<u8>, String), Error> {
    let file = path.display().to_string();
    let io = |source| Error::Io {
        file: file.clone(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(Error::NotRegular { file });
    }
    if meta.len() > limit {
        return Err(Error::TooLarge {
            file,
            size: meta.len(),
            limit,
        });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    Ok((bytes, file))
}

/// Reads a power file. Refuses anything but a regular file (a FIFO or
/// `/dev/zero` could block or never end) and files over [`MAX_FILE_BYTES`].
pub fn read_path(path: &Path) -> Result<Session, Error> {
    let (bytes, file) = read_regular(path, MAX_FILE_BYTES)?;
    let name = path
        .file_name()
        .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
    let mut session = read_bytes(&bytes, &file)?;
    session.name = name;
    Ok(session)
}

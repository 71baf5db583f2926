//! The layout of an emulator run directory (`tracekit emu run -o DIR`),
//! shared by the QEMU plugin that writes it and the analysis that reads it,
//! so a file name is made and parsed in exactly one place.
//!
//! ```text
//! DIR/run.json                 what ran, how, and the totals
//! DIR/raw/pid-<pid>.counts     the plugin's per-block counters (mapped, shared)
//! DIR/raw/pid-<pid>.blocks     the plugin's block log (instructions once per block)
//! DIR/raw/pid-<pid>.sizes      the plugin's instructions per slot (mapped, for totals)
//! DIR/raw/pid-<pid>.perfmap    a JVM's code map, moved in after the run
//! DIR/raw/processes.pack       the counters and logs of a staged run, in one file
//! DIR/analysis-<profile>.json  a cached analysis under one categorization profile
//! DIR/profiles/                imported categorization profiles
//! ```
//!
//! ```
//! use tracekit_emu_format::*;
//! assert_eq!(counts_file(42), "pid-42.counts");
//! assert_eq!(parse_raw_file("pid-42.blocks"), Some(RawFile::Blocks(42)));
//! ```

/// The run's record, in the run directory.
pub const RUN_FILE: &str = "run.json";
/// The directory of the plugin's files, in the run directory.
pub const RAW_DIR: &str = "raw";
/// The directory of imported categorization profiles.
pub const PROFILES_DIR: &str = "profiles";
/// Prefix every per-process file of `raw/` starts with.
pub const PID_PREFIX: &str = "pid-";
/// The file of `raw/` holding every counter file and block log of a run
/// that was staged on a RAM file system (its format is documented in
/// `tracekit_emu::pack`).
pub const PACK_FILE: &str = "processes.pack";
/// The pack while it is being written; renamed to [`PACK_FILE`] when whole.
pub const PACK_PARTIAL: &str = "processes.pack.partial";
/// Prefix of cached analyses in the run directory.
pub const ANALYSIS_PREFIX: &str = "analysis-";

/// A process's counter file.
pub fn counts_file(pid: u32) -> String {
    format!("{PID_PREFIX}{pid}.counts")
}

/// A process's block log.
pub fn blocks_file(pid: u32) -> String {
    format!("{PID_PREFIX}{pid}.blocks")
}

/// A process's table of instructions per counter slot: little-endian
/// `u32`s, entry 0 the number of slots handed out so far, entry `s ≥ 1` the
/// instructions of the block counted in slot `s` (`tb` mode), or, in `insn`
/// mode, the block's instruction count at its first slot and 0 at the
/// others. Totals of a run need only this file and the counts.
pub fn sizes_file(pid: u32) -> String {
    format!("{PID_PREFIX}{pid}.sizes")
}

/// A process's JVM code map.
pub fn perfmap_file(pid: u32) -> String {
    format!("{PID_PREFIX}{pid}.perfmap")
}

/// The cached analysis under `profile`.
pub fn analysis_file(profile: &str) -> String {
    format!("{ANALYSIS_PREFIX}{profile}.json")
}

/// What a file of `raw/` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RawFile {
    /// `pid-<pid>.counts`.
    Counts(u32),
    /// `pid-<pid>.blocks`.
    Blocks(u32),
    /// `pid-<pid>.perfmap`.
    Perfmap(u32),
    /// `pid-<pid>.sizes`.
    Sizes(u32),
}

impl RawFile {
    /// The file's name in `raw/` (the inverse of [`parse_raw_file`]).
    pub fn file_name(self) -> String {
        match self {
            RawFile::Counts(pid) => counts_file(pid),
            RawFile::Blocks(pid) => blocks_file(pid),
            RawFile::Perfmap(pid) => perfmap_file(pid),
            RawFile::Sizes(pid) => sizes_file(pid),
        }
    }
}

/// What the file called `name` in `raw/` is, or `None` when it is not one
/// of the plugin's.
pub fn parse_raw_file(name: &str) -> Option<RawFile> {
    let rest = name.strip_prefix(PID_PREFIX)?;
    let (pid, ext) = rest.split_once('.')?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let pid: u32 = pid.parse().ok()?;
    match ext {
        "counts" => Some(RawFile::Counts(pid)),
        "blocks" => Some(RawFile::Blocks(pid)),
        "perfmap" => Some(RawFile::Perfmap(pid)),
        "sizes" => Some(RawFile::Sizes(pid)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(parse_raw_file(&counts_file(7)), Some(RawFile::Counts(7)));
        assert_eq!(parse_raw_file(&blocks_file(7)), Some(RawFile::Blocks(7)));
        assert_eq!(parse_raw_file(&perfmap_file(7)), Some(RawFile::Perfmap(7)));
        assert_eq!(parse_raw_file(&sizes_file(7)), Some(RawFile::Sizes(7)));
        assert_eq!(parse_raw_file("pid-7.txt"), None);
        assert_eq!(parse_raw_file("pid-x.blocks"), None);
        assert_eq!(parse_raw_file("pid-+7.blocks"), None);
        assert_eq!(parse_raw_file("run.json"), None);
        for kind in [
            RawFile::Counts(3),
            RawFile::Blocks(3),
            RawFile::Perfmap(3),
            RawFile::Sizes(3),
        ] {
            assert_eq!(parse_raw_file(&kind.file_name()), Some(kind));
        }
        assert_eq!(analysis_file("armv7-cortex-a8"), "analysis-armv7-cortex-a8.json");
    }
}

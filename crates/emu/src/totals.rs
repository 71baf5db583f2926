//! A run's totals (processes, block executions, instructions) straight from
//! the plugin's counters and its per-slot instruction counts
//! (`pid-<pid>.sizes`), without reading the block logs: what `emu run`
//! prints right after QEMU exits, so it must cost little more than reading
//! two small arrays per process.
//!
//! Runs recorded before the plugin wrote size tables are totalled from
//! their logs instead ([`crate::capture::load_dir_with`]), with the same
//! result.

use std::collections::BTreeSet;
use std::path::Path;

use tracekit_emu_format::RawFile;

use crate::capture::{counts_of, load_dir_with};
use crate::error::{EmuError, Result};
use crate::raw_files::RawFiles;
use crate::run::{load_record, raw_dir, CountMode, RunTotals};

/// Block executions and instructions of a run directory, from the counters
/// and size tables (or, for older runs, the logs); no disassembly, no profile.
pub fn totals(dir: &Path) -> Result<RunTotals> {
    let per_insn = load_record(dir)?.mode == CountMode::Insn;
    totals_in(&raw_dir(dir), per_insn)
}

/// [`totals`] of the plugin's files in `raw` (a run's `raw/`, or the
/// staging directory before the move), counted per instruction when
/// `per_insn`.
pub fn totals_in(raw: &Path, per_insn: bool) -> Result<RunTotals> {
    let files = RawFiles::open(raw)?;
    let kinds = files.kinds();
    let logs: BTreeSet<u32> = kinds
        .iter()
        .filter_map(|k| if let RawFile::Blocks(pid) = k { Some(*pid) } else { None })
        .collect();
    let tables: BTreeSet<u32> = kinds
        .iter()
        .filter_map(|k| if let RawFile::Sizes(pid) = k { Some(*pid) } else { None })
        .collect();
    if !logs.is_subset(&tables) {
        return totals_from_logs(raw);
    }
    let mut t = RunTotals {
        processes: logs.len(),
        blocks: 0,
        instructions: 0,
    };
    for pid in logs {
        let sizes = sizes_of(&files, pid)?;
        let counts = counts_of(&files, pid, sizes.len() as u64)?;
        let (blocks, instructions) = sum(&sizes, &counts, per_insn);
        t.blocks += blocks;
        t.instructions += instructions;
    }
    Ok(t)
}

/// Block executions and instructions of one process: slot 0 (the overflow
/// sink) is skipped, as it is by the analysis.
fn sum(sizes: &[u32], counts: &[u64], per_insn: bool) -> (u64, u64) {
    let (mut blocks, mut instructions) = (0u64, 0u64);
    for (&size, &count) in sizes.iter().zip(counts).skip(1) {
        if size > 0 {
            blocks = blocks.wrapping_add(count);
        }
        instructions = instructions.wrapping_add(if per_insn {
            count
        } else {
            count.wrapping_mul(u64::from(size))
        });
    }
    (blocks, instructions)
}

/// Reads the size table of `pid`: its used entries, entry 0 included. A
/// table whose header claims more entries than the file holds was cut: an
/// error.
pub fn sizes_of(files: &RawFiles, pid: u32) -> Result<Vec<u32>> {
    let kind = RawFile::Sizes(pid);
    // One read holds the whole table of most processes; a larger one is
    // read again at its size (a killed process's table is a 32 MiB sparse
    // file, so the file's length says nothing).
    const FIRST_READ: u64 = 64 << 10;
    let (path, mut bytes, len) = files.prefix(kind, FIRST_READ)?;
    let Some(&head) = bytes.first_chunk::<4>() else {
        return Err(EmuError::Invalid(format!(
            "{}: truncated at byte {len}: no header",
            path.display()
        )));
    };
    let used = u64::from(u32::from_le_bytes(head)).max(1);
    if used * 4 > len {
        return Err(EmuError::Invalid(format!(
            "{}: truncated: the header at byte 0 counts {used} slots ({} bytes) but the file has {len} bytes",
            path.display(),
            used * 4
        )));
    }
    if used * 4 > bytes.len() as u64 {
        bytes = files.prefix(kind, used * 4)?.1;
    }
    bytes.truncate((used * 4) as usize);
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect())
}

/// Totals from the block logs (runs without size tables).
fn totals_from_logs(raw: &Path) -> Result<RunTotals> {
    let captures = load_dir_with(raw, false)?;
    let mut t = RunTotals {
        processes: captures.len(),
        blocks: 0,
        instructions: 0,
    };
    for cap in &captures {
        for b in &cap.blocks {
            t.blocks += cap.block_count(b);
            t.instructions += cap.insn_counts(b).sum::<u64>();
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_skip_the_overflow_slot_and_weigh_by_size() {
        // Slot 0 (overflow) counted 9 and is ignored; blocks of 3 and 2.
        assert_eq!(sum(&[3, 3, 2], &[9, 10, 4], false), (14, 38));
        // insn mode: a 2-instruction block (sizes 2, 0) run 5 times, its
        // second instruction 4 times (an exception left it early).
        assert_eq!(sum(&[2, 2, 0], &[9, 5, 4], true), (5, 9));
    }

    #[test]
    fn a_cut_table_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pid-1.sizes");
        let read = || sizes_of(&RawFiles::open(dir.path()).unwrap(), 1);
        std::fs::write(&path, [5, 0, 0, 0, 1, 0, 0, 0]).unwrap();
        let e = read().unwrap_err().to_string();
        assert!(e.contains("pid-1.sizes") && e.contains("truncated"), "{e}");
        std::fs::write(&path, [2, 0, 0, 0, 7, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(read().unwrap(), vec![2, 7]);
        std::fs::write(&path, [2]).unwrap();
        assert!(read().is_err());
    }

    proptest::proptest! {
        #[test]
        fn any_table_bytes_give_a_table_or_an_error(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("pid-1.sizes");
            std::fs::write(&path, &bytes).unwrap();
            if let Ok(t) = sizes_of(&RawFiles::open(dir.path()).unwrap(), 1) {
                proptest::prop_assert!(t.len() * 4 <= bytes.len());
            }
        }
    }
}

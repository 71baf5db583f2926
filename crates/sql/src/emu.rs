//! Emulator runs as rows: what `tracekit emu run` counted, per process,
//! per instruction category under a profile, and per block (seed 001's
//! analysis database).

use crate::rows::{Rows, Value};
use crate::schema::table;
use tracekit_emu::analysis::Analysis;
use tracekit_emu::capture::ProcessCapture;
use tracekit_emu::regions::{Classifier, Namer};

/// An emulator run, loaded by the CLI through `tracekit-emu`.
pub struct EmuSource {
    /// The session's id.
    pub id: String,
    /// The run directory.
    pub source: String,
    /// The guest program (absolute path).
    pub program: std::path::PathBuf,
    /// Its analysis under a profile.
    pub analysis: Analysis,
    /// The raw capture: blocks and their counts per process.
    pub captures: Vec<ProcessCapture>,
}

/// Emulator tables.
pub const EMU_TABLES: &[&str] = &["emu_process", "emu_category", "emu_block"];

/// Table `name` of an emulator run (rows of the trace tables: none but
/// `session`'s); `None` for a table that is not an emulator table.
pub fn emu_rows(name: &str, s: &EmuSource) -> Option<Rows> {
    let mut rows = Rows::new(table(name)?);
    let profile = s.analysis.profile.name.as_str();
    match name {
        "emu_process" => {
            for p in &s.analysis.processes {
                rows.push(&[
                    p.pid.into(),
                    p.parent.into(),
                    p.exited_normally.into(),
                    p.blocks.into(),
                    p.distinct_blocks.into(),
                    p.instructions.into(),
                    p.cycles.into(),
                    p.time_s.into(),
                    p.energy_j.into(),
                    p.power_w.into(),
                    profile.into(),
                ]);
            }
        }
        "emu_category" => {
            for p in &s.analysis.processes {
                for c in &p.category_costs {
                    rows.push(&[
                        p.pid.into(),
                        (&c.name).into(),
                        c.instructions.into(),
                        c.cycles.into(),
                        c.energy_j.into(),
                        profile.into(),
                    ]);
                }
            }
        }
        "emu_block" => {
            let namer = Namer::new(Some(&s.program));
            for cap in &s.captures {
                let regions = Classifier::new(cap, Some(&s.program));
                for block in &cap.blocks {
                    let executed: u64 = cap.insn_counts(block).sum();
                    if executed == 0 {
                        continue;
                    }
                    let file = match &block.mapping {
                        Some(m) if m.path.is_empty() => "[anonymous]",
                        Some(m) => m.path.as_str(),
                        None => "[unmapped]",
                    };
                    let symbol = namer.describe(cap, block);
                    let disassembly: Vec<&str> = block.insns.iter().map(|i| i.disas.as_str()).collect();
                    let disassembly = disassembly.join("; ");
                    rows.push(&[
                        cap.log.pid.into(),
                        block.vaddr.into(),
                        (block.insns.len() as u32).into(),
                        cap.block_count(block).into(),
                        executed.into(),
                        regions.region(block).name().into(),
                        file.into(),
                        symbol.as_ref().into(),
                        disassembly.as_str().into(),
                    ]);
                }
            }
        }
        _ => return None,
    }
    Some(rows)
}

/// The `session` row of an emulator run.
pub fn session_row(s: &EmuSource, rows: &mut Rows) {
    let name = s
        .program
        .file_name()
        .map_or_else(|| s.program.display().to_string(), |n| n.to_string_lossy().into_owned());
    let lost: u64 = s.analysis.processes.iter().map(|p| p.overflow).sum();
    rows.push(&[
        name.as_str().into(),
        s.source.as_str().into(),
        "emulator run".into(),
        "none".into(),
        Value::Null,
        Value::Null,
        0i64.into(),
        lost.into(),
    ]);
}

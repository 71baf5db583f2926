//! Text and JSON renderings of analyses: per-process report with ranking,
//! category and mnemonic histograms and hottest blocks; side-by-side
//! comparison of runs or processor organizations.

use std::fmt::Write as _;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::analysis::{Analysis, FileStats, HotBlock, ListedBlock, ProcessStats, ProfileInfo, RegionStats};
use crate::profile::Profile;
use crate::regions::Region;
use crate::run::{Arch, CountMode, RunRecord};

fn bar(value: u64, max: u64, width: usize) -> String {
    let n = if max == 0 {
        0
    } else {
        ((value as f64 / max as f64) * width as f64).round() as usize
    };
    "#".repeat(n)
}

/// Formats a quantity with an SI prefix: `si(4.5e-8, "J")` is `45.0 nJ`.
pub fn si(value: f64, unit: &str) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("0 {unit}");
    }
    let prefixes = [
        (1e9, "G"),
        (1e6, "M"),
        (1e3, "k"),
        (1.0, ""),
        (1e-3, "m"),
        (1e-6, "µ"),
        (1e-9, "n"),
        (1e-12, "p"),
    ];
    let (scale, p) = prefixes
        .iter()
        .find(|(s, _)| value.abs() >= *s)
        .copied()
        .unwrap_or((1e-15, "f"));
    format!("{:.3} {p}{unit}", value / scale)
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// One run under one profile (`tracekit emu report --json`). Field names
/// are a contract: add, never rename.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunReport {
    /// The guest program.
    pub program: PathBuf,
    /// Guest architecture.
    pub arch: Arch,
    /// Counting mode.
    pub mode: CountMode,
    /// The program's exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that killed it, when it was killed.
    pub signal: Option<i32>,
    /// The profile the analysis used.
    pub profile: ProfileInfo,
    /// Per process.
    pub processes: Vec<ProcessReport>,
}

/// One process of a [`RunReport`].
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProcessReport {
    /// Process id.
    pub pid: u32,
    /// Parent pid if forked under the profiler, else 0.
    pub parent: u32,
    /// False when the process was killed (counts are still complete).
    pub exited_normally: bool,
    /// Block executions.
    pub blocks: u64,
    /// Distinct blocks executed at least once.
    pub distinct_blocks: u64,
    /// Instructions executed.
    pub instructions: u64,
    /// Instructions per category.
    pub categories: BTreeMap<String, u64>,
    /// Instructions per ISA mode.
    pub modes: BTreeMap<String, u64>,
    /// Estimated cycles.
    pub cycles: f64,
    /// Estimated time, seconds.
    pub time_s: f64,
    /// Estimated energy, joules.
    pub energy_j: f64,
    /// Average power, watts.
    pub power_w: f64,
    /// Hottest blocks.
    pub hottest: Vec<HotBlock>,
    /// Executions per code region.
    pub regions: Vec<RegionStats>,
    /// Executions per mapped file, most instructions first.
    pub files: Vec<FileStats>,
}

impl RunReport {
    /// The report of `record` analysed as `a`.
    pub fn new(record: &RunRecord, a: &Analysis) -> RunReport {
        RunReport {
            program: record.program.clone(),
            arch: record.arch,
            mode: record.mode,
            exit_code: record.exit_code,
            signal: record.signal,
            profile: a.profile.clone(),
            processes: a
                .processes
                .iter()
                .map(|p| ProcessReport {
                    pid: p.pid,
                    parent: p.parent,
                    exited_normally: p.exited_normally,
                    blocks: p.blocks,
                    distinct_blocks: p.distinct_blocks,
                    instructions: p.instructions,
                    categories: p.categories.clone(),
                    modes: p.modes.clone(),
                    cycles: p.cycles,
                    time_s: p.time_s,
                    energy_j: p.energy_j,
                    power_w: p.power_w,
                    hottest: p.hottest.clone(),
                    regions: p.regions.clone(),
                    files: p.files.clone(),
                })
                .collect(),
        }
    }
}

/// The `--json` report as a JSON value (keys sorted, as written to files).
pub fn report_json(record: &RunRecord, a: &Analysis) -> Value {
    serde_json::to_value(RunReport::new(record, a)).expect("reports serialise")
}

/// The hottest blocks of one process (`tracekit emu blocks --json`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProcessBlocks {
    /// Process id.
    pub pid: u32,
    /// Blocks, hottest first.
    pub blocks: Vec<ListedBlock>,
}

/// A profile in one line (`tracekit emu profile list --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileSummary {
    /// Identifier.
    pub name: String,
    /// Instruction set.
    pub isa: String,
    /// Processor organization.
    pub organization: String,
    /// Clock in GHz.
    pub freq_ghz: f64,
    /// Number of categories (the default one excluded).
    pub categories: usize,
}

impl From<&Profile> for ProfileSummary {
    fn from(p: &Profile) -> ProfileSummary {
        ProfileSummary {
            name: p.name.clone(),
            isa: p.isa.clone(),
            organization: p.organization.clone(),
            freq_ghz: p.freq_ghz,
            categories: p.categories.len(),
        }
    }
}

/// One column of a comparison (`tracekit emu compare --json`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CompareColumn {
    /// What the column shows (a run directory and its profile).
    pub label: String,
    /// The profile used.
    pub profile: String,
    /// Totals over every process.
    pub total: ProcessStats,
}

/// Human-readable report of one run under one profile.
pub fn render_report(record: &RunRecord, a: &Analysis, top: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "program  {} {}", record.program.display(), record.args.join(" "));
    let status = match (record.exit_code, record.signal) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => "unknown".into(),
    };
    let _ = writeln!(
        s,
        "arch     {} ({}), counting mode {}, {status}, {:.3} s under emulation",
        record.arch.name(),
        record.qemu.display(),
        record.mode.arg(),
        record.wall_s
    );
    let _ = writeln!(
        s,
        "profile  {} — {} {} at {} GHz\n",
        a.profile.name, a.profile.isa, a.profile.organization, a.profile.freq_ghz
    );
    let _ = writeln!(s, "Processes ranked by estimated cycles");
    let _ = writeln!(
        s,
        "{:>8} {:>8} {:>14} {:>14} {:>16} {:>12} {:>12} {:>10}",
        "pid", "parent", "blocks", "instructions", "cycles", "time", "energy", "power"
    );
    for p in a.ranking() {
        let _ = writeln!(
            s,
            "{:>8} {:>8} {:>14} {:>14} {:>16.0} {:>12} {:>12} {:>10}{}",
            p.pid,
            p.parent,
            p.blocks,
            p.instructions,
            p.cycles,
            si(p.time_s, "s"),
            si(p.energy_j, "J"),
            si(p.power_w, "W"),
            if p.exited_normally {
                ""
            } else {
                "  (no exit: signal or exec)"
            }
        );
    }
    for p in &a.processes {
        s.push('\n');
        render_process(&mut s, p, top);
    }
    let un = a.uncategorized();
    let total = a.total().instructions;
    let un_total: u64 = un.iter().map(|m| m.count).sum();
    let _ = writeln!(
        s,
        "\n{} executed mnemonics without a category: {} instructions ({:.3}% of {total})",
        un.len(),
        un_total,
        pct(un_total, total)
    );
    s
}

fn render_process(s: &mut String, p: &ProcessStats, top: usize) {
    let _ = writeln!(
        s,
        "== pid {}: {} instructions in {} block executions ({} distinct blocks)",
        p.pid, p.instructions, p.blocks, p.distinct_blocks
    );
    if p.modes.len() > 1 || p.modes.keys().any(|k| k != "any") {
        let modes: Vec<String> = p
            .modes
            .iter()
            .map(|(k, v)| format!("{k} {v} ({:.1}%)", pct(*v, p.instructions)))
            .collect();
        let _ = writeln!(s, "modes: {}", modes.join(", "));
    }
    if p.overflow > 0 {
        let _ = writeln!(
            s,
            "warning: {} executions went to the overflow counter (counts file full)",
            p.overflow
        );
    }
    render_regions(s, p, top);
    let _ = writeln!(
        s,
        "{:<14} {:>14} {:>7} {:>16} {:>12}  histogram",
        "category", "instructions", "%", "cycles", "energy"
    );
    let max = p.category_costs.iter().map(|c| c.instructions).max().unwrap_or(0);
    for c in &p.category_costs {
        let _ = writeln!(
            s,
            "{:<14} {:>14} {:>6.2}% {:>16.0} {:>12}  {}",
            c.name,
            c.instructions,
            pct(c.instructions, p.instructions),
            c.cycles,
            si(c.energy_j, "J"),
            bar(c.instructions, max, 30)
        );
    }
    let _ = writeln!(s, "top mnemonics:");
    let max = p.mnemonics.first().map_or(0, |m| m.count);
    for m in p.mnemonics.iter().take(top) {
        let _ = writeln!(
            s,
            "  {:<6} {:<16} {:<12} {:>14} {:>6.2}%  {}",
            m.ty.keyword(),
            m.mnemonic,
            m.category,
            m.count,
            pct(m.count, p.instructions),
            bar(m.count, max, 30)
        );
    }
    let _ = writeln!(s, "hottest blocks:");
    for b in p.hottest.iter().take(top) {
        let _ = writeln!(
            s,
            "  0x{:<10x} {:<32} {:>3} insns × {:>12} = {:>14} ({:.2}%)",
            b.vaddr,
            b.symbol.as_deref().unwrap_or("?"),
            b.insns,
            b.executions,
            b.instructions,
            pct(b.instructions, p.instructions)
        );
    }
}

/// Regions and the most executed files, when the log had memory maps.
fn render_regions(s: &mut String, p: &ProcessStats, top: usize) {
    if p.regions.iter().all(|r| r.region == Region::Unmapped) {
        return;
    }
    let label = |r: &Region| format!("{} — {}", r.name(), r.describe());
    // Wide enough for the longest label shown, so the numbers line up.
    let width = p
        .regions
        .iter()
        .map(|r| label(&r.region).chars().count())
        .max()
        .unwrap_or(0);
    let _ = writeln!(
        s,
        "{:<width$} {:>14} {:>7} {:>14} {:>10}",
        "region", "instructions", "%", "block execs", "distinct"
    );
    for r in &p.regions {
        let _ = writeln!(
            s,
            "{:<width$} {:>14} {:>6.2}% {:>14} {:>10}",
            label(&r.region),
            r.instructions,
            pct(r.instructions, p.instructions),
            r.blocks,
            r.distinct_blocks
        );
    }
    let _ = writeln!(s, "files:");
    for f in p.files.iter().take(top) {
        let _ = writeln!(
            s,
            "  {:<12} {:>14} {:>6.2}%  {}",
            f.region.name(),
            f.instructions,
            pct(f.instructions, p.instructions),
            f.path
        );
    }
}

/// Annotated listing of blocks: header with symbol and counts, then each
/// instruction with its executions, category and disassembly.
pub fn render_blocks(pid: u32, blocks: &[ListedBlock]) -> String {
    let mut s = String::new();
    for b in blocks {
        let _ = writeln!(
            s,
            "pid {pid} block 0x{:x} {} [{}]: {} executions, {} instructions",
            b.vaddr,
            b.symbol.as_deref().unwrap_or("?"),
            b.ty.keyword(),
            b.executions,
            b.instructions
        );
        for i in &b.insns {
            let _ = writeln!(
                s,
                "  {:>12}  0x{:<10x} {:<12} {:<20} {}",
                i.count, i.vaddr, i.category, i.bytes, i.disas
            );
        }
        s.push('\n');
    }
    s
}

/// Side-by-side totals of several analyses (two runs, or one run under
/// two organizations), one column each.
pub fn render_side_by_side(columns: &[(String, ProcessStats)]) -> String {
    let mut s = String::new();
    let w = columns.iter().map(|c| c.0.len()).max().unwrap_or(0).max(16);
    let _ = write!(s, "{:<20}", "");
    for (label, _) in columns {
        let _ = write!(s, " {label:>w$}");
    }
    s.push('\n');
    let mut row = |name: &str, f: &dyn Fn(&ProcessStats) -> String| {
        let _ = write!(s, "{name:<20}");
        for (_, p) in columns {
            let _ = write!(s, " {:>w$}", f(p));
        }
        s.push('\n');
    };
    row("instructions", &|p| p.instructions.to_string());
    row("block executions", &|p| p.blocks.to_string());
    row("distinct blocks", &|p| p.distinct_blocks.to_string());
    let mut names: Vec<String> = Vec::new();
    for (_, p) in columns {
        for c in &p.category_costs {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    for n in &names {
        row(&format!("  {n}"), &|p| {
            p.categories.get(n).copied().unwrap_or(0).to_string()
        });
    }
    for region in Region::ALL {
        if columns
            .iter()
            .any(|(_, p)| p.region_instructions(region) > 0 && region != Region::Unmapped)
        {
            row(&format!("  in {}", region.name()), &|p| {
                p.region_instructions(region).to_string()
            });
        }
    }
    row("cycles", &|p| format!("{:.0}", p.cycles));
    row("time", &|p| si(p.time_s, "s"));
    row("energy", &|p| si(p.energy_j, "J"));
    row("power", &|p| si(p.power_w, "W"));
    if let Some((_, base)) = columns.first() {
        for (label, p) in columns.iter().skip(1) {
            if p.cycles > 0.0 && p.energy_j > 0.0 {
                let _ = writeln!(
                    s,
                    "{label} vs first: cycles ×{:.3}, time ×{:.3}, energy ×{:.3}",
                    p.cycles / base.cycles.max(f64::MIN_POSITIVE),
                    p.time_s / base.time_s.max(f64::MIN_POSITIVE),
                    p.energy_j / base.energy_j.max(f64::MIN_POSITIVE)
                );
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_maximum() {
        assert_eq!(bar(5, 10, 10), "#####");
        assert_eq!(bar(0, 0, 10), "");
    }

    #[test]
    fn si_prefixes_pick_the_largest_fitting_unit() {
        assert_eq!(si(4.5464e-8, "J"), "45.464 nJ");
        assert_eq!(si(739.45535128975, "s"), "739.455 s");
        assert_eq!(si(0.0, "W"), "0 W");
    }
}

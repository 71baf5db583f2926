//! Text and JSON renderings of analyses: per-process report with ranking,
//! category and mnemonic histograms and hottest blocks; side-by-side
//! comparison of runs or processor organizations.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::analysis::{Analysis, ListedBlock, ProcessStats};
use crate::run::RunRecord;

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

/// The `--json` report: `{"profile", "processes": [{"pid", "blocks",
/// "instructions", "categories": {name: count}, …}]}`.
pub fn report_json(record: &RunRecord, a: &Analysis) -> Value {
    let processes: Vec<Value> = a
        .processes
        .iter()
        .map(|p| {
            json!({
                "pid": p.pid,
                "parent": p.parent,
                "exited_normally": p.exited_normally,
                "blocks": p.blocks,
                "distinct_blocks": p.distinct_blocks,
                "instructions": p.instructions,
                "categories": p.categories,
                "modes": p.modes,
                "cycles": p.cycles,
                "time_s": p.time_s,
                "energy_j": p.energy_j,
                "power_w": p.power_w,
                "hottest": p.hottest,
            })
        })
        .collect();
    json!({
        "program": record.program,
        "arch": record.arch,
        "mode": record.mode,
        "exit_code": record.exit_code,
        "signal": record.signal,
        "profile": a.profile,
        "processes": processes,
    })
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

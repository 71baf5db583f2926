//! Rows of an emulator run: instructions per category (summed over
//! processes, or per process), per guest function or per guest block.
//! Counts are exact, so two runs of one deterministic program agree to the
//! instruction and a comparison gives exact deltas.

use crate::metric::{By, Metric};
use crate::run::RunData;
use tracekit_emu::analysis::Analysis;
use tracekit_emu::capture::ProcessCapture;
use tracekit_emu::symbols::SymbolTable;

/// Rows of a run's analysis (what `tracekit emu report` and `emu compare`
/// read): [`By::Category`] sums each category over the processes;
/// [`By::Process`] keeps one row per process and category, processes named
/// by their rank in pid order (`process 0` is the first started), because
/// pids differ from run to run.
///
/// Panics for any other `by`.
pub fn from_analysis(label: impl Into<String>, analysis: &Analysis, by: By) -> RunData {
    let mut run = RunData::new(label, by, vec![Metric::Instructions]);
    let mut procs: Vec<_> = analysis.processes.iter().collect();
    procs.sort_by_key(|p| p.pid);
    for (rank, p) in procs.iter().enumerate() {
        let process = match by {
            By::Category => None,
            By::Process => {
                let parent = procs.iter().position(|q| q.pid == p.parent);
                Some(run.frame(&match parent {
                    Some(pr) => format!("process {rank} (child of {pr})"),
                    None => format!("process {rank}"),
                }))
            }
            other => panic!("an emulator analysis has no rows by {}", other.name()),
        };
        for (category, &n) in &p.categories {
            let c = run.frame(category);
            match process {
                Some(pf) => run.add(&[pf, c], &[n as f64]),
                None => run.add(&[c], &[n as f64]),
            }
        }
    }
    run
}

/// Name of the rows of instructions outside every known function.
pub const UNKNOWN_FUNCTION: &str = "(no symbol)";

/// Rows of a run's raw capture: instructions per guest function
/// ([`By::Function`], from the program's symbols; code outside every
/// symbol is one row, [`UNKNOWN_FUNCTION`]) or per block ([`By::Block`],
/// `function+0xoffset`, or the address when no symbol covers it; block
/// addresses only match between runs of one build).
///
/// Panics for any other `by`.
pub fn from_capture(
    label: impl Into<String>,
    captures: &[ProcessCapture],
    symbols: Option<&SymbolTable>,
    by: By,
) -> RunData {
    assert!(
        matches!(by, By::Function | By::Block),
        "no emulator rows by {}",
        by.name()
    );
    let mut run = RunData::new(label, by, vec![Metric::Instructions]);
    for cap in captures {
        for block in &cap.blocks {
            let n: u64 = cap.insn_counts(block).sum();
            if n == 0 {
                continue;
            }
            let described = symbols.and_then(|s| s.describe(block.vaddr));
            let name = match (by, described) {
                (By::Function, Some(d)) => d.split("+0x").next().unwrap_or(&d).to_owned(),
                (By::Function, None) => UNKNOWN_FUNCTION.to_owned(),
                (_, Some(d)) => d,
                (_, None) => format!("0x{:x}", block.vaddr),
            };
            let f = run.frame(&name);
            run.add(&[f], &[n as f64]);
        }
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use tracekit_emu::analysis::{ProcessStats, ProfileInfo};

    fn stats(pid: u32, parent: u32, cats: &[(&str, u64)]) -> ProcessStats {
        ProcessStats {
            pid,
            parent,
            exited_normally: true,
            blocks: 0,
            distinct_blocks: 0,
            instructions: cats.iter().map(|c| c.1).sum(),
            categories: cats
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect::<BTreeMap<_, _>>(),
            category_costs: Vec::new(),
            modes: BTreeMap::new(),
            cycles: 0.0,
            time_s: 0.0,
            energy_j: 0.0,
            power_w: 0.0,
            overflow: 0,
            mnemonics: Vec::new(),
            hottest: Vec::new(),
            regions: Vec::new(),
            files: Vec::new(),
        }
    }

    #[test]
    fn categories_sum_over_processes_and_processes_go_by_rank() {
        let a = Analysis {
            profile: ProfileInfo {
                name: "p".into(),
                isa: "x".into(),
                organization: "o".into(),
                freq_ghz: 1.0,
            },
            processes: vec![stats(90, 41, &[("ALU", 5), ("Load", 1)]), stats(41, 0, &[("ALU", 7)])],
        };
        let c = from_analysis("r", &a, By::Category);
        let rows: Vec<_> = c.rows().map(|(k, v)| (c.key_names(k).join("/"), v[0])).collect();
        assert_eq!(rows, [("ALU".to_string(), 12.0), ("Load".to_string(), 1.0)]);
        let p = from_analysis("r", &a, By::Process);
        let rows: Vec<_> = p.rows().map(|(k, v)| (p.key_names(k).join("/"), v[0])).collect();
        assert_eq!(
            rows,
            [
                ("process 0/ALU".to_string(), 7.0),
                ("process 1 (child of 0)/ALU".to_string(), 5.0),
                ("process 1 (child of 0)/Load".to_string(), 1.0)
            ]
        );
        assert_eq!(p.total(Metric::Instructions), Some(13.0));
    }
}

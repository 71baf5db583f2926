//! Per-process analysis of a capture under one categorization profile:
//! block executions, instructions, per-category counts, cycles, time,
//! energy and average power, instruction histograms and the hottest blocks
//! named by the guest's symbols. The result is serializable so a run
//! directory keeps it and reports need no re-run.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::capture::{Block, IsaMode, ProcessCapture};
use crate::profile::{mnemonic_of, InsnType, Profile};
use crate::regions::{Classifier, Namer, Region};

/// Which profile an analysis used.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ProfileInfo {
    /// Profile identifier.
    pub name: String,
    /// Instruction set.
    pub isa: String,
    /// Processor organization.
    pub organization: String,
    /// Clock in GHz.
    pub freq_ghz: f64,
}

/// Cost of one category within a process.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CategoryCost {
    /// Category name.
    pub name: String,
    /// Instructions executed in the category.
    pub instructions: u64,
    /// Estimated cycles (instructions × the category's cycles).
    pub cycles: f64,
    /// Estimated energy in joules (cycle time × the category's power).
    pub energy_j: f64,
}

/// Executions of one mnemonic of one instruction type.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MnemonicCount {
    /// Instruction type (`any` for single-mode ISAs).
    pub ty: InsnType,
    /// Normalized mnemonic.
    pub mnemonic: String,
    /// Category it fell into.
    pub category: String,
    /// Times executed.
    pub count: u64,
}

/// One of the most executed blocks.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HotBlock {
    /// Guest address of the block.
    pub vaddr: u64,
    /// `function+0xoffset` from the guest's symbols, when known.
    pub symbol: Option<String>,
    /// Instructions in the block.
    pub insns: usize,
    /// Times the block ran.
    pub executions: u64,
    /// Instructions executed in it.
    pub instructions: u64,
    /// The code region holding it.
    #[serde(default = "unmapped")]
    pub region: Region,
}

fn unmapped() -> Region {
    Region::Unmapped
}

/// Executions within one code region of a process.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RegionStats {
    /// The region.
    pub region: Region,
    /// Block executions.
    pub blocks: u64,
    /// Distinct blocks executed.
    pub distinct_blocks: u64,
    /// Instructions executed.
    pub instructions: u64,
}

/// Instructions executed in one mapped file (or `[anonymous]`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FileStats {
    /// Path of the file, `[anonymous]` or `[unmapped]`.
    pub path: String,
    /// Region of the file.
    pub region: Region,
    /// Block executions.
    pub blocks: u64,
    /// Instructions executed.
    pub instructions: u64,
}

/// Everything measured for one process.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ProcessStats {
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
    /// Instructions per category (every category of the profile).
    pub categories: BTreeMap<String, u64>,
    /// Cost per category, in the profile's order, default last.
    pub category_costs: Vec<CategoryCost>,
    /// Instructions per ISA mode (`arm`, `thumb`, `any`).
    pub modes: BTreeMap<String, u64>,
    /// Estimated cycles.
    pub cycles: f64,
    /// Estimated time at the profile's clock, seconds.
    pub time_s: f64,
    /// Estimated energy, joules.
    pub energy_j: f64,
    /// Average power, watts (energy / time).
    pub power_w: f64,
    /// Executions lost to a full counts file (0 in practice).
    pub overflow: u64,
    /// Mnemonic histogram, most executed first.
    pub mnemonics: Vec<MnemonicCount>,
    /// Hottest blocks by instructions executed.
    pub hottest: Vec<HotBlock>,
    /// Executions per code region (regions with none left out), in
    /// [`Region::ALL`] order.
    #[serde(default)]
    pub regions: Vec<RegionStats>,
    /// Executions per mapped file, most instructions first.
    #[serde(default)]
    pub files: Vec<FileStats>,
}

impl ProcessStats {
    /// Instructions executed in `region`.
    pub fn region_instructions(&self, region: Region) -> u64 {
        self.regions
            .iter()
            .filter(|r| r.region == region)
            .map(|r| r.instructions)
            .sum()
    }
}

/// The analysis of a whole run under one profile.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Analysis {
    /// The profile used.
    pub profile: ProfileInfo,
    /// Processes by pid.
    pub processes: Vec<ProcessStats>,
}

fn insn_type(block: &Block, namer: &Namer) -> InsnType {
    let resolved = match block.mode {
        IsaMode::Unknown => namer.mode_at(block).unwrap_or(IsaMode::Arm),
        m => m,
    };
    match resolved {
        IsaMode::Arm => InsnType::Arm,
        IsaMode::Thumb => InsnType::Thumb,
        _ => InsnType::Any,
    }
}

/// Analyzes every process of a capture; `top` hottest blocks are kept.
/// `program` (canonical path) is the run's program, for its region;
/// `namer` names hot blocks.
pub fn analyze(
    captures: &[ProcessCapture],
    profile: &Profile,
    program: Option<&std::path::Path>,
    namer: &Namer,
    top: usize,
) -> Analysis {
    let classifier = profile.classifier();
    let ncat = profile.categories.len() + 1; // default last
    let mut memo: HashMap<(InsnType, String), usize> = HashMap::new();
    let mut processes = Vec::new();
    for cap in captures {
        let mut per_cat = vec![0u64; ncat];
        let mut mnemonics: HashMap<(InsnType, String), (usize, u64)> = HashMap::new();
        let mut modes: BTreeMap<String, u64> = BTreeMap::new();
        let (mut blocks, mut distinct, mut instructions) = (0u64, 0u64, 0u64);
        let mut hot: Vec<(u64, u64, &Block, Region)> = Vec::new();
        let regions_of = Classifier::new(cap, program);
        let mut per_region: BTreeMap<Region, RegionStats> = BTreeMap::new();
        let mut per_file: HashMap<String, FileStats> = HashMap::new();
        for block in &cap.blocks {
            let execs = cap.block_count(block);
            let counts: Vec<u64> = cap.insn_counts(block).collect();
            let executed: u64 = counts.iter().sum();
            if executed == 0 {
                continue;
            }
            blocks += execs;
            distinct += 1;
            instructions += executed;
            let region = regions_of.region(block);
            let r = per_region.entry(region).or_insert(RegionStats {
                region,
                blocks: 0,
                distinct_blocks: 0,
                instructions: 0,
            });
            r.blocks += execs;
            r.distinct_blocks += 1;
            r.instructions += executed;
            let file = match &block.mapping {
                Some(m) if m.anonymous() => "[anonymous]",
                Some(m) => m.path.as_str(),
                None => "[unmapped]",
            };
            let f = per_file.entry(file.to_owned()).or_insert_with(|| FileStats {
                path: file.to_owned(),
                // Anonymous memory holds several regions (a JVM's code cache).
                region: if file == "[anonymous]" {
                    Region::Generated
                } else {
                    region
                },
                blocks: 0,
                instructions: 0,
            });
            f.blocks += execs;
            f.instructions += executed;
            let ty = insn_type(block, namer);
            *modes.entry(ty.keyword().to_owned()).or_default() += executed;
            for (insn, n) in block.insns.iter().zip(&counts) {
                let m = mnemonic_of(&cap.log.target, &insn.disas);
                let cat = *memo
                    .entry((ty, m.clone()))
                    .or_insert_with(|| classifier.classify(ty, &m).unwrap_or(ncat - 1));
                per_cat[cat] += n;
                mnemonics.entry((ty, m)).or_insert((cat, 0)).1 += n;
            }
            hot.push((executed, execs, block, region));
        }
        hot.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.vaddr.cmp(&b.2.vaddr)));
        hot.truncate(top);
        let hot: Vec<HotBlock> = hot
            .into_iter()
            .map(|(instructions, executions, block, region)| HotBlock {
                vaddr: block.vaddr,
                symbol: namer.describe(cap, block),
                insns: block.insns.len(),
                executions,
                instructions,
                region,
            })
            .collect();
        let mut files: Vec<FileStats> = per_file.into_values().collect();
        files.sort_by(|a, b| b.instructions.cmp(&a.instructions).then(a.path.cmp(&b.path)));
        let cats = profile.categories.iter().chain([&profile.default]);
        let hz = profile.freq_ghz * 1e9;
        let category_costs: Vec<CategoryCost> = cats
            .zip(&per_cat)
            .map(|(c, &n)| {
                let cycles = n as f64 * c.cycles;
                CategoryCost {
                    name: c.name.clone(),
                    instructions: n,
                    cycles,
                    energy_j: cycles / hz * c.power_mw / 1e3,
                }
            })
            .collect();
        let cycles: f64 = category_costs.iter().map(|c| c.cycles).sum();
        let energy_j: f64 = category_costs.iter().map(|c| c.energy_j).sum();
        let time_s = cycles / hz;
        let names = profile.category_names();
        let mut mnemonics: Vec<MnemonicCount> = mnemonics
            .into_iter()
            .map(|((ty, mnemonic), (cat, count))| MnemonicCount {
                ty,
                mnemonic,
                category: names[cat].to_owned(),
                count,
            })
            .collect();
        mnemonics.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(a.mnemonic.cmp(&b.mnemonic))
                .then(a.ty.cmp(&b.ty))
        });
        processes.push(ProcessStats {
            pid: cap.log.pid,
            parent: cap.log.parent,
            exited_normally: cap.log.exited_normally,
            blocks,
            distinct_blocks: distinct,
            instructions,
            categories: category_costs
                .iter()
                .map(|c| (c.name.clone(), c.instructions))
                .collect(),
            category_costs,
            modes,
            cycles,
            time_s,
            energy_j,
            power_w: if time_s > 0.0 { energy_j / time_s } else { 0.0 },
            overflow: cap.overflow(),
            mnemonics,
            hottest: hot,
            regions: per_region.into_values().collect(),
            files,
        });
    }
    Analysis {
        profile: ProfileInfo {
            name: profile.name.clone(),
            isa: profile.isa.clone(),
            organization: profile.organization.clone(),
            freq_ghz: profile.freq_ghz,
        },
        processes,
    }
}

impl Analysis {
    /// Processes ranked by estimated cycles, most expensive first.
    pub fn ranking(&self) -> Vec<&ProcessStats> {
        let mut v: Vec<&ProcessStats> = self.processes.iter().collect();
        v.sort_by(|a, b| b.cycles.total_cmp(&a.cycles).then(a.pid.cmp(&b.pid)));
        v
    }

    /// Sums over all processes (pid 0); histograms and hot blocks merged.
    pub fn total(&self) -> ProcessStats {
        let mut t = ProcessStats {
            pid: 0,
            parent: 0,
            exited_normally: self.processes.iter().all(|p| p.exited_normally),
            blocks: 0,
            distinct_blocks: 0,
            instructions: 0,
            categories: BTreeMap::new(),
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
        };
        let mut regions: BTreeMap<Region, RegionStats> = BTreeMap::new();
        let mut files: BTreeMap<String, FileStats> = BTreeMap::new();
        let mut mn: BTreeMap<(InsnType, String, String), u64> = BTreeMap::new();
        for p in &self.processes {
            t.blocks += p.blocks;
            t.distinct_blocks += p.distinct_blocks;
            t.instructions += p.instructions;
            t.cycles += p.cycles;
            t.time_s += p.time_s;
            t.energy_j += p.energy_j;
            t.overflow += p.overflow;
            for (k, v) in &p.categories {
                *t.categories.entry(k.clone()).or_default() += v;
            }
            for (k, v) in &p.modes {
                *t.modes.entry(k.clone()).or_default() += v;
            }
            for c in &p.category_costs {
                match t.category_costs.iter_mut().find(|x| x.name == c.name) {
                    Some(x) => {
                        x.instructions += c.instructions;
                        x.cycles += c.cycles;
                        x.energy_j += c.energy_j;
                    }
                    None => t.category_costs.push(c.clone()),
                }
            }
            for m in &p.mnemonics {
                *mn.entry((m.ty, m.mnemonic.clone(), m.category.clone())).or_default() += m.count;
            }
            t.hottest.extend(p.hottest.iter().cloned());
            for r in &p.regions {
                let e = regions.entry(r.region).or_insert(RegionStats {
                    region: r.region,
                    blocks: 0,
                    distinct_blocks: 0,
                    instructions: 0,
                });
                e.blocks += r.blocks;
                e.distinct_blocks += r.distinct_blocks;
                e.instructions += r.instructions;
            }
            for f in &p.files {
                let e = files.entry(f.path.clone()).or_insert(FileStats {
                    path: f.path.clone(),
                    region: f.region,
                    blocks: 0,
                    instructions: 0,
                });
                e.blocks += f.blocks;
                e.instructions += f.instructions;
            }
        }
        t.regions = regions.into_values().collect();
        t.files = files.into_values().collect();
        t.files
            .sort_by(|a, b| b.instructions.cmp(&a.instructions).then(a.path.cmp(&b.path)));
        t.power_w = if t.time_s > 0.0 { t.energy_j / t.time_s } else { 0.0 };
        t.mnemonics = mn
            .into_iter()
            .map(|((ty, mnemonic, category), count)| MnemonicCount {
                ty,
                mnemonic,
                category,
                count,
            })
            .collect();
        t.mnemonics
            .sort_by(|a, b| b.count.cmp(&a.count).then(a.mnemonic.cmp(&b.mnemonic)));
        t.hottest.sort_by_key(|b| std::cmp::Reverse(b.instructions));
        let top = self.processes.iter().map(|p| p.hottest.len()).max().unwrap_or(0);
        t.hottest.truncate(top);
        t
    }

    /// Executed mnemonics that fell into the default category, merged over
    /// processes, most executed first.
    pub fn uncategorized(&self) -> Vec<MnemonicCount> {
        let default = self
            .processes
            .first()
            .and_then(|p| p.category_costs.last())
            .map(|c| c.name.clone());
        let Some(default) = default else {
            return Vec::new();
        };
        self.total()
            .mnemonics
            .into_iter()
            .filter(|m| m.category == default)
            .collect()
    }
}

/// One instruction of a listed block.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ListedInsn {
    /// Guest address.
    pub vaddr: u64,
    /// Encoded bytes, hex.
    pub bytes: String,
    /// QEMU's disassembly.
    pub disas: String,
    /// Category under the profile.
    pub category: String,
    /// Times executed.
    pub count: u64,
}

/// A block with its instructions, for annotated listings.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ListedBlock {
    /// Guest address of the first instruction.
    pub vaddr: u64,
    /// `function+0xoffset`, when known.
    pub symbol: Option<String>,
    /// `arm`, `thumb` or `any`.
    pub ty: InsnType,
    /// Times the block ran.
    pub executions: u64,
    /// Instructions executed in it.
    pub instructions: u64,
    /// The instructions.
    pub insns: Vec<ListedInsn>,
}

/// The `top` blocks of a process by instructions executed, with their
/// instructions, execution counts and categories.
pub fn hot_block_listing(cap: &ProcessCapture, profile: &Profile, namer: &Namer, top: usize) -> Vec<ListedBlock> {
    let classifier = profile.classifier();
    let mut ranked: Vec<(u64, &std::sync::Arc<crate::capture::Block>)> = cap
        .blocks
        .iter()
        .map(|b| (cap.insn_counts(b).sum::<u64>(), b))
        .filter(|(n, _)| *n > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.vaddr.cmp(&b.1.vaddr)));
    ranked
        .into_iter()
        .take(top)
        .map(|(instructions, block)| {
            let ty = insn_type(block, namer);
            let insns = block
                .insns
                .iter()
                .zip(cap.insn_counts(block))
                .map(|(insn, count)| ListedInsn {
                    vaddr: insn.vaddr,
                    bytes: insn.bytes.iter().map(|b| format!("{b:02x}")).collect(),
                    disas: insn.disas.split_whitespace().collect::<Vec<_>>().join(" "),
                    category: classifier
                        .category(ty, &mnemonic_of(&cap.log.target, &insn.disas))
                        .name
                        .clone(),
                    count,
                })
                .collect();
            ListedBlock {
                vaddr: block.vaddr,
                symbol: namer.describe(cap, block),
                ty,
                executions: cap.block_count(block),
                instructions,
                insns,
            }
        })
        .collect()
}

/// Executions per guest instruction address over all blocks of a process:
/// the quantity both counting modes must agree on.
pub fn address_counts(cap: &ProcessCapture) -> BTreeMap<u64, u64> {
    let mut out = BTreeMap::new();
    for block in &cap.blocks {
        for (insn, n) in block.insns.iter().zip(cap.insn_counts(block)) {
            if n > 0 {
                *out.entry(insn.vaddr).or_default() += n;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::parse_log;
    use std::path::Path;

    fn capture(log: &str, counts: Vec<u64>) -> ProcessCapture {
        let log = parse_log(Path::new("x"), log).unwrap();
        ProcessCapture {
            blocks: log.blocks.clone(),
            log,
            counts,
            perfmap: None,
        }
    }

    const PROFILE: &str = "profile t\nisa armv7\nfreq_ghz 2\ndefault Undefined cycles=1 power_mw=100\n\
        category CondBranch cycles=3 power_mw=113\nany bne\ncategory ALU cycles=1 power_mw=200\nany subs\n";

    #[test]
    fn counts_cycles_and_energy_follow_the_profile() {
        let cap = capture(
            "tracekit-emu-blocks 1\nP 5 0 1 arm tb\nB 1 100 2 A\nI 100 00000000 subs r0, r0, #1\nI 104 00000000 bne #0x100\nB 2 108 1 A\nI 108 00000000 svc #0\nX 3\n",
            vec![0, 10, 1],
        );
        let profile = Profile::parse(Path::new("p"), PROFILE).unwrap();
        let a = analyze(&[cap], &profile, None, &Namer::new(None), 5);
        let p = &a.processes[0];
        assert_eq!((p.blocks, p.instructions, p.distinct_blocks), (11, 21, 2));
        assert_eq!(p.categories["CondBranch"], 10);
        assert_eq!(p.categories["ALU"], 10);
        assert_eq!(p.categories["Undefined"], 1);
        assert_eq!(p.cycles, 30.0 + 10.0 + 1.0);
        let expected_energy = (30.0 * 0.113 + 10.0 * 0.2 + 1.0 * 0.1) / 2e9;
        assert!((p.energy_j - expected_energy).abs() < 1e-18);
        assert!((p.power_w - expected_energy / (41.0 / 2e9)).abs() < 1e-12);
        assert_eq!(p.hottest[0].vaddr, 0x100);
        assert_eq!(a.uncategorized().len(), 1);
        assert_eq!(a.uncategorized()[0].mnemonic, "svc");
    }

    #[test]
    fn hot_blocks_are_listed_with_counts_and_categories() {
        let cap = capture(
            "tracekit-emu-blocks 1\nP 5 0 1 arm tb\nB 1 100 2 A\nI 100 010050e2 subs\tr0, r0, #1\nI 104 fdffff1a bne #0x100\nB 2 108 1 A\nI 108 000000ef svc #0\n",
            vec![0, 10, 1],
        );
        let profile = Profile::parse(Path::new("p"), PROFILE).unwrap();
        let listing = hot_block_listing(&cap, &profile, &Namer::new(None), 1);
        assert_eq!(listing.len(), 1);
        let b = &listing[0];
        assert_eq!(
            (b.vaddr, b.executions, b.instructions, b.ty),
            (0x100, 10, 20, InsnType::Arm)
        );
        assert_eq!(b.insns[0].disas, "subs r0, r0, #1");
        assert_eq!(b.insns[0].bytes, "010050e2");
        assert_eq!(b.insns[1].category, "CondBranch");
    }

    #[test]
    fn insn_mode_counts_each_instruction_and_agrees_on_addresses() {
        let text = "tracekit-emu-blocks 1\nP 5 0 1 x86_64 insn\nB 1 0 2 -\nI 0 90 nop\nI 1 c3 retq\n";
        let cap = capture(text, vec![0, 4, 3]);
        let a = analyze(
            std::slice::from_ref(&cap),
            &Profile::builtin("x86_64-generic").unwrap(),
            None,
            &Namer::new(None),
            5,
        );
        assert_eq!((a.processes[0].blocks, a.processes[0].instructions), (4, 7));
        assert_eq!(address_counts(&cap), BTreeMap::from([(0, 4), (1, 3)]));
    }
}

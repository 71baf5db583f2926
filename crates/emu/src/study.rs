//! The seed's case study (AndroProf §5.1–§5.4) reproduced in structure over
//! a set of run directories: Java against JNI per kernel (Table 5.2,
//! Figure 5.1), JIT on against off (Tables 5.7–5.8), architecture against
//! architecture, and category-based estimates for two processor
//! organizations (Tables 5.4–5.5).
//!
//! Each run is described by its labels (`emu run --label kernel=fft
//! --label form=jni --label jit=off`); runs without labels are recognised
//! from their command line (`suite KERNEL …` is the C form;
//! `java … tkbench.emu.Kernels KERNEL java|jni …`, with `-Xint` meaning the
//! JIT is off). Forms: `java` (pure Java), `jni` (Java calling the kernel in
//! a JNI library), `c` (the plain C program).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::error::{EmuError, Result};
use crate::regions::Region;
use crate::run::{analysis_for, load_record, RunRecord};

/// One run of the study, measured.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StudyRun {
    /// Run directory.
    pub dir: PathBuf,
    /// Guest architecture.
    pub arch: String,
    /// Kernel name.
    pub kernel: String,
    /// `java`, `jni` or `c`.
    pub form: String,
    /// False when the JVM ran with `-Xint` (always true for `c`).
    pub jit: bool,
    /// Wall time under the profiler, seconds.
    pub time_s: f64,
    /// Block executions.
    pub blocks: u64,
    /// Instructions executed.
    pub instructions: u64,
    /// Instructions per code region (region name → count).
    pub regions: BTreeMap<String, u64>,
    /// Category-based estimates, one per organization.
    pub estimates: Vec<OrgEstimate>,
}

/// The estimate of one run on one processor organization.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OrgEstimate {
    /// Profile name.
    pub profile: String,
    /// Organization (e.g. `Cortex-A8`).
    pub organization: String,
    /// Estimated cycles.
    pub cycles: f64,
    /// Estimated time, seconds.
    pub time_s: f64,
    /// Estimated energy, joules.
    pub energy_j: f64,
}

/// All runs of a study (`tracekit emu study --json`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Study {
    /// The runs, sorted by arch, kernel, form and JIT.
    pub runs: Vec<StudyRun>,
}

/// The two organizations compared for an arch by default.
pub fn default_profiles(arch: &str) -> Vec<&'static str> {
    match arch {
        "arm" => vec!["armv7-cortex-a8", "armv7-cortex-a9"],
        "aarch64" => vec!["aarch64-cortex-a53", "aarch64-cortex-a72"],
        "mips" => vec!["mips32-generic"],
        _ => vec!["x86_64-generic"],
    }
}

/// (kernel, form, jit) from labels, else from the command line.
pub fn describe_run(record: &RunRecord) -> Option<(String, String, bool)> {
    let labels = &record.labels;
    let args = &record.args;
    let name = record.program.file_name()?.to_string_lossy().into_owned();
    let inferred = if name == "suite" {
        args.first().map(|k| (k.clone(), "c".to_owned()))
    } else {
        args.iter()
            .position(|a| a == "tkbench.emu.Kernels")
            .and_then(|i| Some((args.get(i + 1)?.clone(), args.get(i + 2)?.clone())))
    };
    let kernel = labels
        .get("kernel")
        .cloned()
        .or_else(|| inferred.clone().map(|i| i.0))?;
    let form = labels.get("form").cloned().or_else(|| inferred.map(|i| i.1))?;
    let jit = match labels.get("jit").map(String::as_str) {
        Some("off") => false,
        Some(_) => true,
        None => !args.iter().any(|a| a == "-Xint"),
    };
    Some((kernel, form, jit))
}

fn run_dirs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.join(tracekit_emu_format::RUN_FILE).is_file() {
            out.push(input.clone());
            continue;
        }
        let entries = std::fs::read_dir(input).map_err(|e| EmuError::Io {
            path: input.clone(),
            error: e,
        })?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        found.sort();
        let before = out.len();
        for dir in found {
            if dir.join(tracekit_emu_format::RUN_FILE).is_file() {
                out.push(dir);
            } else {
                out.extend(run_dirs(&[dir]).unwrap_or_default());
            }
        }
        if out.len() == before {
            return Err(EmuError::Invalid(format!(
                "{}: no run directories (run.json) found",
                input.display()
            )));
        }
    }
    Ok(out)
}

/// Measures every run found under `inputs` (run directories or folders of
/// them). `profiles` overrides the organizations compared (default: two
/// per arch, see [`default_profiles`]).
pub fn collect(inputs: &[PathBuf], profiles: &[String]) -> Result<Study> {
    let mut runs = Vec::new();
    for dir in run_dirs(inputs)? {
        let record = load_record(&dir)?;
        let Some((kernel, form, jit)) = describe_run(&record) else {
            return Err(EmuError::Invalid(format!(
                "{}: cannot tell the kernel and form of this run; give it --label kernel=K --label form=java|jni|c",
                dir.display()
            )));
        };
        let arch = record.arch.name().to_owned();
        let names: Vec<String> = if profiles.is_empty() {
            default_profiles(&arch).into_iter().map(String::from).collect()
        } else {
            profiles.to_vec()
        };
        let mut estimates = Vec::new();
        let mut totals = None;
        for p in &names {
            let a = analysis_for(&dir, Some(p))?;
            let t = a.total();
            estimates.push(OrgEstimate {
                profile: a.profile.name.clone(),
                organization: a.profile.organization.clone(),
                cycles: t.cycles,
                time_s: t.time_s,
                energy_j: t.energy_j,
            });
            totals.get_or_insert(t);
        }
        let t = totals.ok_or_else(|| EmuError::Invalid("no profile to analyze with".into()))?;
        runs.push(StudyRun {
            dir: dir.clone(),
            arch,
            kernel,
            form,
            jit,
            time_s: record.wall_s,
            blocks: t.blocks,
            instructions: t.instructions,
            regions: t
                .regions
                .iter()
                .map(|r| (r.region.name().to_owned(), r.instructions))
                .collect(),
            estimates,
        });
    }
    runs.sort_by(|a, b| (&a.arch, &a.kernel, &a.form, !a.jit).cmp(&(&b.arch, &b.kernel, &b.form, !b.jit)));
    Ok(Study { runs })
}

impl Study {
    /// The run of (arch, kernel, form, jit), if measured.
    pub fn find(&self, arch: &str, kernel: &str, form: &str, jit: bool) -> Option<&StudyRun> {
        self.runs
            .iter()
            .find(|r| r.arch == arch && r.kernel == kernel && r.form == form && r.jit == jit)
    }

    fn keys(&self) -> (Vec<String>, Vec<String>) {
        let mut arches: Vec<String> = self.runs.iter().map(|r| r.arch.clone()).collect();
        let mut kernels: Vec<String> = self.runs.iter().map(|r| r.kernel.clone()).collect();
        arches.sort();
        arches.dedup();
        kernels.sort();
        kernels.dedup();
        (arches, kernels)
    }
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.2}", a / b)
    } else {
        "-".into()
    }
}

fn region(r: &StudyRun, regions: &[Region]) -> u64 {
    regions
        .iter()
        .map(|g| r.regions.get(g.name()).copied().unwrap_or(0))
        .sum()
}

/// The study's tables as Markdown text.
pub fn render(study: &Study) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let (arches, kernels) = study.keys();
    let _ = writeln!(s, "## Java against JNI (seed Table 5.2, Figure 5.1), JIT on\n");
    let _ = writeln!(
        s,
        "| arch | kernel | form | time (s) | blocks | instructions | insns/block | VM+interp | JIT | JNI lib | libc | C program instrs |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for arch in &arches {
        for k in &kernels {
            let c = study.find(arch, k, "c", true);
            for form in ["java", "jni"] {
                let Some(r) = study.find(arch, k, form, true) else {
                    continue;
                };
                let _ = writeln!(
                    s,
                    "| {arch} | {k} | {form} | {:.3} | {} | {} | {:.2} | {} | {} | {} | {} | {} |",
                    r.time_s,
                    r.blocks,
                    r.instructions,
                    r.instructions as f64 / r.blocks.max(1) as f64,
                    region(r, &[Region::Vm, Region::Interpreter, Region::Stubs]),
                    region(r, &[Region::Jit]),
                    region(r, &[Region::AppNative]),
                    region(r, &[Region::Libc]),
                    c.map_or("-".into(), |c| c.instructions.to_string()),
                );
            }
            if let (Some(j), Some(n)) = (study.find(arch, k, "java", true), study.find(arch, k, "jni", true)) {
                let _ = writeln!(
                    s,
                    "| {arch} | {k} | java/jni | {} | {} | {} | | | | | | |",
                    ratio(j.time_s, n.time_s),
                    ratio(j.blocks as f64, n.blocks as f64),
                    ratio(j.instructions as f64, n.instructions as f64)
                );
            }
        }
    }
    let _ = writeln!(s, "\n## JIT on against off (seed Tables 5.7 and 5.8)\n");
    let _ = writeln!(
        s,
        "| arch | kernel | form | time on (s) | time off (s) | speed-up off/on | instrs on | instrs off | instrs off/on | JIT share on |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    for arch in &arches {
        for k in &kernels {
            for form in ["java", "jni"] {
                let (Some(on), Some(off)) = (study.find(arch, k, form, true), study.find(arch, k, form, false)) else {
                    continue;
                };
                let _ = writeln!(
                    s,
                    "| {arch} | {k} | {form} | {:.3} | {:.3} | {} | {} | {} | {} | {:.1}% |",
                    on.time_s,
                    off.time_s,
                    ratio(off.time_s, on.time_s),
                    on.instructions,
                    off.instructions,
                    ratio(off.instructions as f64, on.instructions as f64),
                    100.0 * region(on, &[Region::Jit]) as f64 / on.instructions.max(1) as f64
                );
            }
        }
    }
    if arches.len() >= 2 {
        let (a, b) = (&arches[0], &arches[1]);
        let _ = writeln!(s, "\n## {a} against {b} (seed Table 5.2, ARM against MIPS), JIT on\n");
        let _ = writeln!(
            s,
            "| kernel | form | {a} blocks | {b} blocks | {a} instrs | {b} instrs | {b}/{a} instrs | {a} insns/block | {b} insns/block |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
        for k in &kernels {
            for form in ["java", "jni", "c"] {
                let (Some(x), Some(y)) = (study.find(a, k, form, true), study.find(b, k, form, true)) else {
                    continue;
                };
                let _ = writeln!(
                    s,
                    "| {k} | {form} | {} | {} | {} | {} | {} | {:.2} | {:.2} |",
                    x.blocks,
                    y.blocks,
                    x.instructions,
                    y.instructions,
                    ratio(y.instructions as f64, x.instructions as f64),
                    x.instructions as f64 / x.blocks.max(1) as f64,
                    y.instructions as f64 / y.blocks.max(1) as f64
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\n## Category-based estimates, two organizations (seed Tables 5.4 and 5.5), JIT on\n"
    );
    let _ = writeln!(
        s,
        "| arch | kernel | form | organization | cycles | time (s) | energy (J) | cycles 1st/2nd | energy 1st/2nd |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for r in study.runs.iter().filter(|r| r.jit) {
        for (i, e) in r.estimates.iter().enumerate() {
            let (cr, er) = match (i, r.estimates.get(1)) {
                (0, Some(second)) => (ratio(e.cycles, second.cycles), ratio(e.energy_j, second.energy_j)),
                _ => (String::new(), String::new()),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.0} | {:.6} | {:.6} | {cr} | {er} |",
                r.arch, r.kernel, r.form, e.organization, e.cycles, e.time_s, e.energy_j
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{Arch, CountMode};
    use std::path::Path;

    fn record(program: &str, args: &[&str]) -> RunRecord {
        RunRecord {
            arch: Arch::Aarch64,
            qemu: "qemu-aarch64".into(),
            plugin: "p.so".into(),
            program: Path::new(program).to_path_buf(),
            args: args.iter().map(|a| a.to_string()).collect(),
            mode: CountMode::Tb,
            exit_code: Some(0),
            signal: None,
            wall_s: 1.0,
            profile: "aarch64-cortex-a53".into(),
            injected_args: vec![],
            ld_prefix: None,
            labels: BTreeMap::new(),
        }
    }

    #[test]
    fn runs_are_recognised_from_labels_or_command_lines() {
        let c = record("/w/aarch64/suite", &["fft", "4"]);
        assert_eq!(describe_run(&c), Some(("fft".into(), "c".into(), true)));
        let j = record(
            "/jvm/bin/java",
            &["-Xint", "-cp", "x.jar", "tkbench.emu.Kernels", "lu", "jni", "2"],
        );
        assert_eq!(describe_run(&j), Some(("lu".into(), "jni".into(), false)));
        let mut other = record("/bin/ls", &[]);
        assert_eq!(describe_run(&other), None);
        other.labels.insert("kernel".into(), "sor".into());
        other.labels.insert("form".into(), "java".into());
        other.labels.insert("jit".into(), "off".into());
        assert_eq!(describe_run(&other), Some(("sor".into(), "java".into(), false)));
    }
}

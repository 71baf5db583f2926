//! `tracekit emu …`: instruction profiling under QEMU's user-mode emulator
//! (run, report, compare, estimate, and categorization-profile editing).

use std::ffi::OsString;
use std::path::PathBuf;

use super::choices::{EmuArch, EmuMode, InsnType};
use super::input::print_json;
use anyhow::{bail, Context};
use clap::Subcommand;
use tracekit_emu::analysis::hot_block_listing;
use tracekit_emu::estimate::{Estimate, EstimateInput};
use tracekit_emu::profile::{builtin_names, Profile};
use tracekit_emu::report::{
    render_blocks, render_report, render_side_by_side, CompareColumn, ProcessBlocks, ProfileSummary, RunReport,
};
use tracekit_emu::run::{self as emurun, RunRequest};
use tracekit_safeio::terminal_lines;

/// Arguments of `tracekit emu`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: EmuCommand,
}

#[derive(Debug, Subcommand)]
enum EmuCommand {
    /// Run a program under qemu-<arch> with the profiling plugin.
    Run(RunArgs),
    /// Report a run: per-process totals, categories, hottest blocks.
    Report(ReportArgs),
    /// List the hottest blocks with their instructions, counts, categories.
    Blocks(BlocksArgs),
    /// Compare runs side by side (e.g. Java with and without the JIT, Java
    /// calling JNI, and the C program), with instructions per code region.
    Compare(CompareArgs),
    /// The seed's case study over run directories: Java against JNI, JIT
    /// on against off, arch against arch, and estimates for two
    /// organizations.
    Study(StudyArgs),
    /// Estimate time, power and energy with the AndroProf formulas.
    Estimate(EstimateArgs),
    /// List, export, import and edit categorization profiles.
    #[command(subcommand)]
    Profile(ProfileCommand),
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Guest architecture.
    #[arg(long, value_enum)]
    arch: EmuArch,
    /// Output directory for the run's data and analyses.
    #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
    out: PathBuf,
    /// Counting mode.
    #[arg(long, value_enum, default_value = "tb")]
    mode: EmuMode,
    /// Profile for the analysis kept with the run (built-in name or file).
    #[arg(long)]
    profile: Option<String>,
    /// Emulator binary (default: qemu-<arch> matching the program's ELF).
    #[arg(long)]
    qemu: Option<PathBuf>,
    /// Plugin library (default: $TRACEKIT_QEMU_PLUGIN, else beside tracekit or in ../lib/tracekit, else the copy built into tracekit).
    #[arg(long)]
    plugin: Option<PathBuf>,
    /// A label kept in run.json (KEY=VALUE, repeatable), e.g. kernel=fft
    /// form=jni; `emu study` groups runs by them.
    #[arg(long = "label", value_name = "KEY=VALUE")]
    labels: Vec<String>,
    /// For a JVM, do not ask it for its code map at exit (then JIT code,
    /// interpreter and stubs are reported together as generated code).
    #[arg(long)]
    no_jvm_code_map: bool,
    /// Have QEMU disassemble every instruction (slow; checks tracekit's own
    /// disassembly of the logged bytes).
    #[arg(long, hide = true)]
    disas_all: bool,
    /// Program and its arguments (after `--`).
    #[arg(required = true, last = true)]
    command: Vec<OsString>,
}

#[derive(Debug, clap::Args)]
struct ReportArgs {
    /// Run directory written by `tracekit emu run`.
    dir: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Profile(s) to analyze with; two or more print organizations side by
    /// side (e.g. --profile armv7-cortex-a8 --profile armv7-cortex-a9).
    #[arg(long)]
    profile: Vec<String>,
    /// How many mnemonics and hottest blocks to list per process.
    #[arg(long, default_value_t = 10, alias = "top")]
    limit: usize,
}

#[derive(Debug, clap::Args)]
struct BlocksArgs {
    /// Run directory.
    dir: PathBuf,
    /// Only this process (default: every process).
    #[arg(long)]
    pid: Option<u32>,
    /// Blocks per process.
    #[arg(long, default_value_t = 5, alias = "top")]
    limit: usize,
    /// Profile for the categories (default: the run's own).
    #[arg(long)]
    profile: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct StudyArgs {
    /// Run directories, or folders holding them.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Organizations to estimate for (default: two per arch, e.g.
    /// armv7-cortex-a8 and armv7-cortex-a9).
    #[arg(long)]
    profile: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct CompareArgs {
    /// Run directories (two or more).
    #[arg(required = true, num_args = 2..)]
    runs: Vec<PathBuf>,
    /// Profile to analyze both with (default: each run's own).
    #[arg(long)]
    profile: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct EstimateArgs {
    /// Operation frequency, GHz.
    #[arg(long)]
    freq_ghz: f64,
    /// Processor power dissipation, W.
    #[arg(long)]
    power_w: f64,
    /// Cycles per instruction.
    #[arg(long)]
    cpi: f64,
    /// Base number of instructions (reference data).
    #[arg(long)]
    base_instructions: f64,
    /// Base number of cache misses (reference data).
    #[arg(long)]
    base_misses: f64,
    /// Energy of one memory access, nJ.
    #[arg(long)]
    mem_access_nj: f64,
    /// Profiled number of instructions.
    #[arg(long, required_unless_present = "run")]
    instructions: Option<f64>,
    /// Take the instruction count (all processes) from a run directory.
    #[arg(long, conflicts_with = "instructions")]
    run: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ProfileCommand {
    /// List the built-in profiles.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a profile (built-in name or file) in the text format.
    Export {
        /// Built-in name or file.
        profile: String,
        /// Output file (default: standard output).
        #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
        out: Option<PathBuf>,
    },
    /// Check a profile file and store it in a run directory, where
    /// `--profile <its name>` then finds it.
    Import {
        /// Profile file.
        file: PathBuf,
        /// Run directory.
        #[arg(long)]
        into: PathBuf,
    },
    /// List executed mnemonics that have no category in a profile.
    Uncategorized {
        /// Run directory.
        dir: PathBuf,
        /// Profile (default: the run's own).
        #[arg(long)]
        profile: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Put mnemonics into a category of a profile file (the default
    /// category's name removes them from every category).
    Assign {
        /// Profile file to edit.
        #[arg(long)]
        profile: PathBuf,
        /// Instruction type the entries apply to.
        #[arg(long = "type", value_enum, default_value = "any")]
        ty: InsnType,
        /// Category name.
        category: String,
        /// Mnemonics (a trailing * matches a prefix).
        #[arg(required = true)]
        mnemonics: Vec<String>,
    },
    /// Add a category to a profile file.
    CreateCategory {
        /// Profile file to edit.
        #[arg(long)]
        profile: PathBuf,
        /// Category name (one word).
        name: String,
        /// Average cycles per instruction.
        #[arg(long)]
        cycles: f64,
        /// Average power, mW.
        #[arg(long)]
        power_mw: f64,
    },
}

/// Runs `tracekit emu …`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        EmuCommand::Run(a) => run_program(a),
        EmuCommand::Report(a) => report(a),
        EmuCommand::Blocks(a) => blocks(a),
        EmuCommand::Compare(a) => compare(a),
        EmuCommand::Study(a) => study(a),
        EmuCommand::Estimate(a) => estimate(a),
        EmuCommand::Profile(c) => profile(c),
    }
}

fn run_program(a: RunArgs) -> anyhow::Result<()> {
    let mut command = a.command.into_iter();
    let program = PathBuf::from(command.next().context("no program given after --")?);
    let mut labels = std::collections::BTreeMap::new();
    for l in &a.labels {
        let Some((k, v)) = l.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            bail!("--label {l:?} is not KEY=VALUE");
        };
        labels.insert(k.to_owned(), v.to_owned());
    }
    let req = RunRequest {
        arch: a.arch.into(),
        out: a.out.clone(),
        program,
        args: command.collect(),
        mode: a.mode.into(),
        qemu: a.qemu,
        plugin: Some(match a.plugin {
            Some(p) => p,
            None => crate::libs::find(&crate::libs::QEMU_PLUGIN)?,
        }),
        profile: a.profile,
        jvm_code_map: !a.no_jvm_code_map,
        labels,
        disas_all: a.disas_all,
    };
    crate::preflight::qemu(req.arch, &req.program, req.qemu.as_deref())?;
    let running = crate::progress::step(format!("running {} under QEMU", req.program.display()));
    let (record, totals) = emurun::run(&req)?;
    drop(running);
    super::note(format_args!(
        "{} process(es), {} instructions, {} block executions; results in {} (tracekit emu report {})",
        totals.processes,
        totals.instructions,
        totals.blocks,
        a.out.display(),
        a.out.display()
    ));
    super::exit_like_program(record.exit_code, record.signal, "its counts are complete");
    Ok(())
}

/// The file every emulator run directory holds (tracekit-emu-format's
/// `RUN_FILE`; the CLI reaches run directories through tracekit-emu only).
const RUN_FILE: &str = "run.json";

/// Says plainly when `dir` is not an emulator run directory, and how to
/// make one, instead of failing on the first file inside it.
fn check_run_dir(dir: &std::path::Path) -> anyhow::Result<()> {
    if !dir.exists() {
        bail!(
            "{}: no such directory; `tracekit emu run -o {} -- PROGRAM` makes a run directory",
            dir.display(),
            dir.display()
        );
    }
    // Present but not a regular file (a FIFO, a device) is left to the
    // reader, which names it as such.
    if std::fs::symlink_metadata(dir.join(RUN_FILE)).is_err() {
        bail!(
            "{}: not an emulator run directory (no {}); `tracekit emu run -o DIR -- PROGRAM` makes one",
            dir.display(),
            RUN_FILE
        );
    }
    Ok(())
}

fn report(a: ReportArgs) -> anyhow::Result<()> {
    check_run_dir(&a.dir)?;
    let record = emurun::load_record(&a.dir)?;
    if a.profile.len() >= 2 {
        let mut columns = Vec::new();
        let mut jsons = Vec::new();
        for p in &a.profile {
            let analysis = emurun::analysis_for(&a.dir, Some(p))?;
            jsons.push(RunReport::new(&record, &analysis));
            columns.push((analysis.profile.name.clone(), analysis.total()));
        }
        if a.json {
            return print_json(&jsons);
        }
        print!("{}", terminal_lines(&render_side_by_side(&columns)));
        return Ok(());
    }
    let analysis = emurun::analysis_for(&a.dir, a.profile.first().map(String::as_str))?;
    if a.json {
        return print_json(&RunReport::new(&record, &analysis));
    }
    print!("{}", terminal_lines(&render_report(&record, &analysis, a.limit)));
    Ok(())
}

fn blocks(a: BlocksArgs) -> anyhow::Result<()> {
    check_run_dir(&a.dir)?;
    let record = emurun::load_record(&a.dir)?;
    let profile = emurun::resolve_profile(&a.dir, a.profile.as_deref().unwrap_or(&record.profile))?;
    let namer = tracekit_emu::regions::Namer::new(Some(&record.program));
    let captures = emurun::load_capture(&a.dir)?;
    if let Some(pid) = a.pid {
        if !captures.iter().any(|c| c.log.pid == pid) {
            bail!("no process {pid} in {}", a.dir.display());
        }
    }
    let mut all = Vec::new();
    for cap in captures.iter().filter(|c| a.pid.is_none_or(|p| p == c.log.pid)) {
        let blocks = hot_block_listing(cap, &profile, &namer, a.limit);
        if a.json {
            all.push(ProcessBlocks {
                pid: cap.log.pid,
                blocks,
            });
        } else {
            print!("{}", terminal_lines(&render_blocks(cap.log.pid, &blocks)));
        }
    }
    if a.json {
        return print_json(&all);
    }
    Ok(())
}

fn compare(a: CompareArgs) -> anyhow::Result<()> {
    let mut columns = Vec::new();
    for dir in &a.runs {
        check_run_dir(dir)?;
        let analysis = emurun::analysis_for(dir, a.profile.as_deref())?;
        columns.push(CompareColumn {
            label: format!("{} [{}]", dir.display(), analysis.profile.name),
            profile: analysis.profile.name.clone(),
            total: analysis.total(),
        });
    }
    if a.json {
        return print_json(&columns);
    }
    let pairs: Vec<_> = columns.into_iter().map(|c| (c.label, c.total)).collect();
    print!("{}", terminal_lines(&render_side_by_side(&pairs)));
    Ok(())
}

fn study(a: StudyArgs) -> anyhow::Result<()> {
    let study = tracekit_emu::study::collect(&a.dirs, &a.profile)?;
    if a.json {
        return print_json(&study);
    }
    print!("{}", terminal_lines(&tracekit_emu::study::render(&study)));
    Ok(())
}

fn estimate(a: EstimateArgs) -> anyhow::Result<()> {
    let instructions = match (a.instructions, &a.run) {
        (Some(i), _) => i,
        (None, Some(dir)) => emurun::analysis_for(dir, None)?.total().instructions as f64,
        (None, None) => bail!("give --instructions or --run"),
    };
    let input = EstimateInput {
        freq_ghz: a.freq_ghz,
        power_w: a.power_w,
        cpi: a.cpi,
        base_instructions: a.base_instructions,
        base_misses: a.base_misses,
        mem_access_nj: a.mem_access_nj,
        instructions,
    };
    let e = Estimate::compute(&input)?;
    if a.json {
        println!("{}", serde_json::to_string(&e)?);
    } else {
        println!("instructions        {instructions}");
        println!("time estimation     {} s", e.time_s);
        println!("power dissipation   {} W", e.power_w);
        println!("energy consumption  {} J", e.energy_j);
    }
    Ok(())
}

fn edit_profile(path: &PathBuf, edit: impl FnOnce(&mut Profile) -> anyhow::Result<()>) -> anyhow::Result<()> {
    if !path.is_file() {
        bail!(
            "{} is not a profile file (export a built-in first: tracekit emu profile export NAME -o FILE)",
            path.display()
        );
    }
    let text = tracekit_safeio::read_text(path)?;
    let mut profile = Profile::parse(path, &text)?;
    edit(&mut profile)?;
    std::fs::write(path, profile.to_text()).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn profile(c: ProfileCommand) -> anyhow::Result<()> {
    match c {
        ProfileCommand::List { json } => {
            let list: Vec<ProfileSummary> = builtin_names()
                .map(|name| ProfileSummary::from(&Profile::builtin(name).expect("listed")))
                .collect();
            if json {
                return print_json(&list);
            }
            for p in list {
                println!(
                    "{:<20} {:<8} {:<30} {} GHz, {} categories",
                    p.name, p.isa, p.organization, p.freq_ghz, p.categories
                );
            }
        }
        ProfileCommand::Export { profile, out } => {
            let text = Profile::load(&profile)?.to_text();
            match out {
                Some(path) => std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?,
                None => print!("{text}"),
            }
        }
        ProfileCommand::Import { file, into } => {
            let text = tracekit_safeio::read_text(&file)?;
            let profile = Profile::parse(&file, &text)?;
            check_run_dir(&into)?;
            emurun::load_record(&into)?;
            let stored = emurun::import_profile(&into, &profile)?;
            println!(
                "imported profile {} into {}",
                tracekit_safeio::terminal(&profile.name),
                stored.display()
            );
        }
        ProfileCommand::Uncategorized { dir, profile, json } => {
            check_run_dir(&dir)?;
            let analysis = emurun::analysis_for(&dir, profile.as_deref())?;
            let total = analysis.total().instructions.max(1);
            if json {
                return print_json(&analysis.uncategorized());
            }
            for m in analysis.uncategorized() {
                println!(
                    "{:<6} {:<20} {:>14} {:>8.4}%",
                    m.ty.keyword(),
                    tracekit_safeio::terminal(&m.mnemonic),
                    m.count,
                    100.0 * m.count as f64 / total as f64
                );
            }
        }
        ProfileCommand::Assign {
            profile,
            ty,
            category,
            mnemonics,
        } => {
            edit_profile(&profile, |p| {
                for m in &mnemonics {
                    p.assign(ty.into(), m, &category)?;
                }
                Ok(())
            })?;
        }
        ProfileCommand::CreateCategory {
            profile,
            name,
            cycles,
            power_mw,
        } => {
            edit_profile(&profile, |p| Ok(p.create_category(&name, cycles, power_mw)?))?;
        }
    }
    Ok(())
}

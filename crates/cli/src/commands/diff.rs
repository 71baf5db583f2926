//! `tracekit diff A… --vs B…`: which methods (call paths, instruction
//! categories, functions, block paths, …) changed between runs A and runs
//! B, by how much and with what confidence; folded stacks with two counts,
//! a differential flame graph, and an exit status for CI.

use super::input::{self, safe};
use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use std::path::{Path, PathBuf};
use tracekit_diff::flame::{folded_lines, write_folded, FlameTree};
use tracekit_diff::{compare, By, DiffReport, Metric, Options, RunData};

/// Exit status when `--fail-on-regression` finds a regressed row.
pub const REGRESSION_STATUS: i32 = 3;

/// Arguments of `tracekit diff`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Inputs: traces (any format tracekit reads; methods are matched by class,
name and signature, native functions by name and module), emulator run
directories (`tracekit emu run -o DIR`), or path logs with --program JAR.

Each row gets the median per side, the relative change with a bootstrap
confidence interval resampling whole runs, the Mann-Whitney p-value
adjusted by Benjamini-Hochberg over all rows (q), Cliff's delta, and a
verdict: regressed/improved (q < alpha, interval excludes 0, change at
least the noise floor = max(--threshold, run-to-run spread)), unchanged
(change below the floor), inconclusive (at least the floor but not
significant). Counts every run of a side
agrees on (deterministic programs, emulator counts, path frequencies) are
compared exactly. Give 10 or more runs per side for the tests to mean
something.

Exit status: 0 done; 3 with --fail-on-regression when a row regressed;
1 error; 2 usage error.")]
pub struct Args {
    /// Runs before the change (A).
    #[arg(value_name = "A", required = true)]
    a: Vec<PathBuf>,
    /// Runs after the change (B).
    #[arg(long = "vs", value_name = "B", required = true, num_args = 1..)]
    b: Vec<PathBuf>,
    /// What a row is: method|path for traces (default method); category|process|function|block for
    /// emulator runs (default category); method|path|edge for path logs (default path).
    #[arg(long, value_enum)]
    by: Option<ByChoice>,
    /// Metrics to compare (repeat or separate with commas). Default: excl-wall (excl-cpu without a
    /// wall clock) for traces, instructions for emulator runs, executions for path logs.
    #[arg(long, value_enum, value_delimiter = ',')]
    metric: Vec<MetricChoice>,
    /// Divide each run's values by the run's total first (removes whole-run speed differences).
    #[arg(long)]
    normalize: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Write folded stacks with two counts (`stack countA countB`, as difffolded.pl writes, for
    /// flamegraph.pl): mean per run of each side; µs for times.
    #[arg(long, value_name = "OUT")]
    folded: Option<PathBuf>,
    /// Write the differential flame graph (red grew, blue shrank) as a self-contained HTML page.
    #[arg(long, value_name = "OUT")]
    html: Option<PathBuf>,
    /// Exit with status 3 when a row regressed (for CI).
    #[arg(long)]
    fail_on_regression: bool,
    /// Smallest change, in percent, that counts as a regression or improvement (the noise floor's
    /// minimum; a noisier row's floor is its run-to-run spread).
    #[arg(long, value_name = "P", default_value_t = 2.0, value_parser = non_negative)]
    threshold: f64,
    /// Significance level of the adjusted p-values.
    #[arg(long, default_value_t = 0.05, value_parser = probability)]
    alpha: f64,
    /// Bootstrap resamples of the confidence intervals.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    resamples: u64,
    /// Seed of the resampling (equal inputs and seed give equal intervals).
    #[arg(long, default_value_t = Options::default().seed)]
    seed: u64,
    /// Rows printed per metric (0 = all); regressed and improved rows are always printed.
    #[arg(long, default_value_t = 25)]
    limit: usize,
    #[command(flatten)]
    threads: input::ThreadFilter,
    /// The inputs are path logs written by this instrumented jar.
    #[arg(long, value_name = "JAR")]
    program: Option<PathBuf>,
    /// Emulator runs: the categorization profile (default: each run's own).
    #[arg(long)]
    profile: Option<String>,
}

/// `--by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ByChoice {
    /// Per method (traces) or per method's invocations (path logs).
    Method,
    /// Per call path from the root (traces) or block path (path logs).
    Path,
    /// Per control-flow edge (path logs).
    Edge,
    /// Per instruction category (emulator runs).
    Category,
    /// Per process and category (emulator runs).
    Process,
    /// Per guest function (emulator runs).
    Function,
    /// Per guest block (emulator runs of one build).
    Block,
}

/// `--metric`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MetricChoice {
    /// Invocations.
    Calls,
    /// Inclusive wall time.
    InclWall,
    /// Exclusive wall time.
    ExclWall,
    /// Inclusive thread-CPU time.
    InclCpu,
    /// Exclusive thread-CPU time.
    ExclCpu,
    /// Inclusive energy.
    InclEnergy,
    /// Exclusive energy.
    ExclEnergy,
    /// Guest instructions (emulator runs).
    Instructions,
    /// Executions of a path, edge or method (path logs).
    Executions,
    /// Every metric all runs have.
    All,
}

impl ByChoice {
    fn by(self) -> By {
        self.to_possible_value()
            .and_then(|v| By::parse(v.get_name()))
            .unwrap_or(By::Method)
    }
}

impl MetricChoice {
    fn metric(self) -> Option<Metric> {
        Metric::parse(self.to_possible_value()?.get_name())
    }
}

fn non_negative(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a non-negative percentage")),
    }
}

fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(format!("`{s}` is not a probability between 0 and 1")),
    }
}

/// What the inputs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Trace,
    Emu,
    PathLog,
}

impl Kind {
    fn rows(self) -> (By, &'static [By]) {
        match self {
            Kind::Trace => (By::Method, &[By::Method, By::Path]),
            Kind::Emu => (By::Category, &[By::Category, By::Process, By::Function, By::Block]),
            Kind::PathLog => (By::Path, &[By::Method, By::Path, By::Edge]),
        }
    }
}

/// An emulator run directory (its `run.json` reads), as `tracekit-emu` decides.
fn is_emu_run(p: &Path) -> bool {
    p.is_dir() && tracekit_emu::run::load_record(p).is_ok()
}

/// One side's runs: the rows compared, and the rows by call path for the
/// flame graph when those differ.
struct Side {
    runs: Vec<RunData>,
    flame: Option<Vec<RunData>>,
    inputs: Vec<PathBuf>,
}

/// Compares and prints.
pub fn run(a: Args) -> Result<()> {
    let all: Vec<&PathBuf> = a.a.iter().chain(&a.b).collect();
    let kind = if a.program.is_some() {
        Kind::PathLog
    } else if all.iter().all(|p| is_emu_run(p)) {
        Kind::Emu
    } else if let Some(p) = all.iter().find(|p| is_emu_run(p)) {
        bail!(
            "{} is an emulator run directory but other inputs are not: compare emulator runs with emulator runs",
            p.display()
        );
    } else {
        Kind::Trace
    };
    let (default_by, allowed) = kind.rows();
    let by = a.by.map_or(default_by, ByChoice::by);
    if !allowed.contains(&by) {
        let names: Vec<&str> = allowed.iter().map(|b| b.name()).collect();
        bail!(
            "--by {} does not apply to {}: use {}",
            by.name(),
            match kind {
                Kind::Trace => "traces",
                Kind::Emu => "emulator runs",
                Kind::PathLog => "path logs",
            },
            names.join(", ")
        );
    }
    let wants_flame = a.folded.is_some() || a.html.is_some();
    let side_a = load_side(&a, kind, by, &a.a, wants_flame)?;
    let side_b = load_side(&a, kind, by, &a.b, wants_flame)?;
    let metrics = chosen_metrics(&a.metric, &side_a.runs, &side_b.runs);
    let opts = Options {
        metrics: metrics.clone(),
        normalize: a.normalize,
        min_noise_floor: a.threshold / 100.0,
        alpha: a.alpha,
        resamples: a.resamples as usize,
        seed: a.seed,
        ..Options::default()
    };
    let report = match compare(&side_a.runs, &side_b.runs, &opts) {
        Ok(r) => r,
        Err(
            e @ tracekit_diff::Error::MissingMetric {
                metric: Metric::InclEnergy | Metric::ExclEnergy,
                ..
            },
        ) => {
            bail!("{e}: energy per method needs a power track attributed to methods, which tracekit does not do yet")
        }
        Err(e) => return Err(e.into()),
    };
    for w in &report.warnings {
        super::warning(w);
    }
    let inputs: Vec<PathBuf> = side_a.inputs.iter().chain(&side_b.inputs).cloned().collect();
    if wants_flame {
        write_flame(&a, &report, &side_a, &side_b, &inputs)?;
    }
    if a.json {
        input::print_json(&report)?;
    } else {
        print!(
            "{}",
            tracekit_safeio::terminal_lines(&tracekit_diff::render::render_table(&report, a.limit))
        );
    }
    let regressed = report.summary.regressed;
    if a.fail_on_regression && regressed > 0 {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        super::note(format_args!(
            "{regressed} row(s) regressed: exit status {REGRESSION_STATUS} (--fail-on-regression)"
        ));
        std::process::exit(REGRESSION_STATUS);
    }
    Ok(())
}

/// The metrics asked for; `all` is every metric each run has.
fn chosen_metrics(wanted: &[MetricChoice], a: &[RunData], b: &[RunData]) -> Vec<Metric> {
    if wanted.contains(&MetricChoice::All) {
        let runs: Vec<&RunData> = a.iter().chain(b).collect();
        return Metric::ALL
            .into_iter()
            .filter(|&m| runs.iter().all(|r| r.metric_index(m).is_some()))
            .collect();
    }
    let mut out: Vec<Metric> = Vec::new();
    for m in wanted.iter().filter_map(|c| c.metric()) {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}

/// Reduces one side's inputs to rows (two at a time: each worker holds one
/// session until its rows are made).
fn load_side(a: &Args, kind: Kind, by: By, paths: &[PathBuf], wants_flame: bool) -> Result<Side> {
    match kind {
        Kind::Trace => {
            let flame_by = (wants_flame && by != By::Path).then_some(By::Path);
            let loaded = in_parallel(paths, |p| {
                let loaded = input::open_loaded(p)?;
                let s = &loaded.session;
                let threads = a.threads.resolve(s)?;
                let label = p.display().to_string();
                // Energy per method plugs in here (issue 12): pass the
                // session's attribution instead of `None` and the runs gain
                // the incl-energy and excl-energy metrics.
                let energy: Option<&dyn tracekit_diff::EnergyAttribution> = None;
                let rows = tracekit_diff::trace::from_session(&label, s, by, threads.as_deref(), energy);
                let flame =
                    flame_by.map(|fb| tracekit_diff::trace::from_session(&label, s, fb, threads.as_deref(), energy));
                Ok((rows, flame, loaded.inputs))
            })?;
            let mut side = Side {
                runs: Vec::new(),
                flame: flame_by.map(|_| Vec::new()),
                inputs: Vec::new(),
            };
            for (rows, flame, inputs) in loaded {
                side.runs.push(rows);
                if let (Some(list), Some(f)) = (side.flame.as_mut(), flame) {
                    list.push(f);
                }
                side.inputs.extend(inputs);
            }
            Ok(side)
        }
        Kind::Emu => {
            if !a.threads.threads.is_empty() {
                bail!("--thread applies to traces, not to emulator runs");
            }
            let runs = in_parallel(paths, |dir| {
                let label = dir.display().to_string();
                Ok(match by {
                    By::Category | By::Process => {
                        let analysis = tracekit_emu::run::analysis_for(dir, a.profile.as_deref())?;
                        tracekit_diff::emu::from_analysis(label, &analysis, by)
                    }
                    _ => {
                        let record = tracekit_emu::run::load_record(dir)?;
                        let captures = tracekit_emu::run::load_capture(dir)?;
                        let symbols = match tracekit_emu::symbols::SymbolTable::load(&record.program) {
                            Ok(s) => Some(s),
                            Err(e) => {
                                super::warning(format_args!("{e}: blocks are named by address"));
                                None
                            }
                        };
                        tracekit_diff::emu::from_capture(label, &captures, symbols.as_ref(), by)
                    }
                })
            })?;
            Ok(Side {
                runs,
                flame: None,
                inputs: paths.to_vec(),
            })
        }
        Kind::PathLog => {
            let jar = a.program.as_deref().unwrap_or(Path::new(""));
            if !a.threads.threads.is_empty() {
                bail!("--thread applies to traces, not to path logs");
            }
            let stored = tracekit_jvm::Program::from_instrumented_jar(jar)?;
            let core = tracekit_jvm::CoreProgram::new(&stored).with_context(|| jar.display().to_string())?;
            let names: Vec<String> = stored.program.methods.iter().map(|m| m.display_name()).collect();
            let mut runs = Vec::new();
            for log in paths {
                // Streamed: memory is the rows, not the run's invocations.
                let mut rows = tracekit_diff::paths::PathRows::new(log.display().to_string(), by);
                tracekit_jvm::decode_file(&stored, &core, log, tracekit_jvm::Options::default(), |d| {
                    rows.add(&names[d.method], d.blocks(), d.aborted_after.is_some());
                    Ok(())
                })
                .with_context(|| format!("decoding {}", log.display()))?;
                runs.push(rows.finish());
            }
            let mut inputs = paths.to_vec();
            inputs.push(jar.to_owned());
            Ok(Side {
                runs,
                flame: None,
                inputs,
            })
        }
    }
}

/// Applies `f` to every path on up to two worker threads, keeping the order.
fn in_parallel<T: Send>(paths: &[PathBuf], f: impl Fn(&Path) -> Result<T> + Sync) -> Result<Vec<T>> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 2);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<T>>> = (0..paths.len()).map(|_| None).collect();
    let results = std::sync::Mutex::new(&mut slots);
    std::thread::scope(|s| {
        for _ in 0..workers.min(paths.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= paths.len() {
                    break;
                }
                let r = f(&paths[i]);
                let failed = r.is_err();
                if let Ok(mut slots) = results.lock() {
                    slots[i] = Some(r);
                }
                if failed {
                    next.store(paths.len(), std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    // The first error in input order wins; after one, later inputs may be unread.
    if let Some(i) = slots.iter().position(|s| matches!(s, Some(Err(_)))) {
        if let Some(Err(e)) = slots.swap_remove(i) {
            return Err(e);
        }
    }
    slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| Err(anyhow::anyhow!("an input was left unread"))))
        .collect()
}

/// Writes `--folded` and `--html`.
fn write_flame(a: &Args, report: &DiffReport, side_a: &Side, side_b: &Side, inputs: &[PathBuf]) -> Result<()> {
    let metric = report.metrics[0];
    let (fa, fb) = match (&side_a.flame, &side_b.flame) {
        (Some(fa), Some(fb)) => (fa.as_slice(), fb.as_slice()),
        _ => (side_a.runs.as_slice(), side_b.runs.as_slice()),
    };
    let lines = folded_lines(fa, fb, metric, a.normalize)?;
    for out in [&a.folded, &a.html].into_iter().flatten() {
        if let Some(n) = tracekit_io::check_output(out, inputs)? {
            super::note(n);
        }
    }
    if let Some(out) = &a.folded {
        let mut text = Vec::new();
        write_folded(&lines, metric, a.normalize, &mut text)?;
        std::fs::write(out, text).with_context(|| format!("writing {}", out.display()))?;
        super::note(format_args!(
            "wrote {} ({} stacks)",
            safe(&out.display().to_string()),
            lines.len()
        ));
    }
    if let Some(out) = &a.html {
        let tree = FlameTree::new(&lines, metric, a.normalize, Some(report));
        let title = format!(
            "{} vs {}",
            a.a.first().map_or(String::new(), |p| p.display().to_string()),
            a.b.first().map_or(String::new(), |p| p.display().to_string())
        );
        let html = tracekit_report::render_diff_page(&title, report, &tree);
        std::fs::write(out, html).with_context(|| format!("writing {}", out.display()))?;
        super::note(format_args!("wrote {}", safe(&out.display().to_string())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_is_the_library_name() {
        for c in ByChoice::value_variants() {
            assert_eq!(c.by().name(), c.to_possible_value().unwrap().get_name());
        }
        assert_eq!(ByChoice::value_variants().len(), By::ALL.len());
        for c in MetricChoice::value_variants() {
            let name = c.to_possible_value().unwrap().get_name().to_owned();
            match c.metric() {
                Some(m) => assert_eq!(m.name(), name),
                None => assert_eq!(*c, MetricChoice::All),
            }
        }
        assert_eq!(MetricChoice::value_variants().len(), Metric::ALL.len() + 1);
    }
}

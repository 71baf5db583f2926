//! `tracekit energy INPUT`: energy (J), mean power (W) and charge (µAh) of
//! the whole capture, a time range, each instance of a slice or method, the
//! intervals where a context condition holds, or inside and outside a
//! problem.

use super::input::open_loaded;
use anyhow::{bail, Result};
use std::path::PathBuf;
use tracekit_analysis::problems::horizon;
use tracekit_energy::{CurrentSign, EnergyReport, Method, Options, Window};

/// How rates are integrated.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Integration {
    /// Linear between samples.
    Trapezoid,
    /// Each sample held until the next.
    LeftHold,
}

/// Which sign of the current drains the battery.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Sign {
    /// Decide from the battery status and the data, and say why.
    Auto,
    /// Positive current drains the battery (many phones).
    PositiveIsDischarge,
    /// Negative current drains the battery (the Linux kernel ABI).
    NegativeIsDischarge,
}

/// Arguments of `tracekit energy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Power data from another capture of the same run (a systrace, a power
    /// file, a `tracekit power record` directory), lined up with INPUT on
    /// the wall clock.
    #[arg(long, value_name = "INPUT")]
    power: Option<PathBuf>,
    /// Start of a window, µs on the session's timeline.
    #[arg(long, requires = "to_us")]
    from_us: Option<f64>,
    /// End of the window, µs.
    #[arg(long, requires = "from_us")]
    to_us: Option<f64>,
    /// Each instance of this slice or method (repeatable); the total is
    /// the energy of the time any of them ran.
    #[arg(long = "slice", alias = "method", value_name = "NAME")]
    slices: Vec<String>,
    /// The intervals where this context condition holds, e.g. "Screen orientation == 1".
    #[arg(long)]
    when: Option<String>,
    /// Inside and outside a problem: "METHOD" (while it runs) or "METHOD when CONDITION".
    #[arg(long)]
    problem: Option<String>,
    /// How rates (power, current) are integrated.
    #[arg(long, value_enum, default_value = "trapezoid")]
    integration: Integration,
    /// Which sign of the current drains the battery.
    #[arg(long, value_enum, default_value = "auto")]
    current_sign: Sign,
    /// Supply voltage for captures that measure current only (a power monitor's), volts.
    #[arg(long)]
    nominal_voltage_v: Option<f64>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Computes and prints the energy report.
pub fn run(a: Args) -> Result<()> {
    let loaded = open_loaded(&a.input)?;
    let mut s = loaded.session;
    if let Some(p) = &a.power {
        let other = open_loaded(p)?.session;
        let shift = tracekit_io::line_up(&mut s, other, p)?;
        super::note(format_args!(
            "{} lined up with {} on the wall clock (shifted by {:.6} s)",
            p.display(),
            a.input.display(),
            shift as f64 * 1e-9
        ));
    }
    let end = horizon(&s);
    let mut windows: Vec<Window> = Vec::new();
    if let (Some(f), Some(t)) = (a.from_us, a.to_us) {
        windows.push(tracekit_energy::range_us(f, t)?);
    }
    for name in &a.slices {
        let found = tracekit_energy::slice_instances(&s, name, end).map_err(|e| {
            anyhow::anyhow!(
                "{}: {e} (`tracekit profile {}` lists the methods and slices)",
                a.input.display(),
                a.input.display()
            )
        })?;
        if found.is_empty() {
            bail!("{}: {name:?} never ran in this session", a.input.display());
        }
        windows.extend(found);
    }
    if let Some(c) = &a.when {
        windows.extend(tracekit_energy::condition_intervals(&s, c)?);
    }
    if let Some(p) = &a.problem {
        let def = match p.split_once(" when ") {
            Some((m, c)) => tracekit_analysis::ProblemDef::Method {
                method: m.trim().to_owned(),
                when: Some(tracekit_analysis::Condition::parse(c.trim())?),
            },
            None => tracekit_analysis::ProblemDef::Method {
                method: p.trim().to_owned(),
                when: None,
            },
        };
        let (from, to) = s.time_span().map_or((0, end), |(a, _)| (a as i64, end));
        let (inside, outside) = tracekit_energy::problem_windows(&s, &def, from, to)?;
        windows.extend(inside);
        windows.extend(outside);
    }
    let options = Options {
        method: match a.integration {
            Integration::Trapezoid => Method::Trapezoid,
            Integration::LeftHold => Method::LeftHold,
        },
        current_sign: match a.current_sign {
            Sign::Auto => CurrentSign::Auto,
            Sign::PositiveIsDischarge => CurrentSign::PositiveIsDischarge,
            Sign::NegativeIsDischarge => CurrentSign::NegativeIsDischarge,
        },
        nominal_voltage_v: a.nominal_voltage_v,
        ..Options::default()
    };
    let report = tracekit_energy::analyse(&s, &windows, &options).map_err(|e| match e {
        tracekit_energy::Error::NoPowerData { .. } => anyhow::anyhow!(
            "{}: {e}; give power measured during the same run with --power FILE (a systrace with \
             power counters, a Trepn/BattOr/Battery Historian file, or a `tracekit power record` \
             directory), or record with `tracekit record --context power`",
            a.input.display()
        ),
        e => anyhow::Error::new(e).context(a.input.display().to_string()),
    })?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    print_text(&report);
    Ok(())
}

fn fmt_opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "—".to_owned(), |x| format!("{x:.digits$}"))
}

fn print_text(r: &EnergyReport) {
    let sources: Vec<String> = r.sources.iter().map(|s| format!("{} ({})", s.track, s.role)).collect();
    println!("Energy from {}, integrated by {:?}", sources.join(", "), r.method);
    println!(
        "current sign: {:?} ({:?}): {}",
        r.current_sign.convention, r.current_sign.confidence, r.current_sign.reason
    );
    if let Some(p) = r.gauge_period_ms {
        println!(
            "fuel gauge updates every {p:.1} ms (sampled every {} ms); {} stale samples",
            fmt_opt(r.sampling_period_ms, 1),
            r.stale_samples
        );
    }
    println!(
        "\n{:>14} {:>14} {:>12} {:>10} {:>12} {:>25}  window",
        "from s", "to s", "energy J", "mean W", "charge µAh", "bounds J"
    );
    let row = |w: &tracekit_energy::WindowEnergy| {
        let bounds = w
            .bounds_j
            .map_or("—".to_owned(), |[lo, hi]| format!("[{lo:.4}, {hi:.4}]"));
        let mut label: String = w
            .label
            .as_deref()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_control())
            .collect();
        if w.uncertain {
            label.push_str(" (uncertain)");
        }
        println!(
            "{:>14.6} {:>14.6} {:>12} {:>10} {:>12} {:>25}  {label}",
            w.from_us * 1e-6,
            w.to_us * 1e-6,
            fmt_opt(w.energy_j, 4),
            fmt_opt(w.mean_power_w, 4),
            fmt_opt(w.charge_uah, 2),
            bounds
        );
    };
    const SHOWN: usize = 50;
    for w in r.windows.iter().take(SHOWN) {
        row(w);
    }
    if r.windows.len() > SHOWN {
        println!("… {} more windows (--json lists all)", r.windows.len() - SHOWN);
    }
    if r.windows.len() > 1 {
        println!("total:");
        row(&r.total);
    }
    if let Some(e) = &r.estimates {
        println!("\ntrapezoid {:.4} J, left-hold {:.4} J", e.trapezoid_j, e.left_hold_j);
    }
    for c in &r.cross_checks {
        println!("cross-check {}: {:.4} J ({})", c.method, c.energy_j, c.note);
    }
    for p in &r.two_samplers {
        println!("two samplers: {p:?}");
    }
    for n in &r.notes {
        println!("note: {n}");
    }
}

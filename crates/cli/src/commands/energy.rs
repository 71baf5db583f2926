//! `tracekit energy INPUT`: energy (J), mean power (W) and charge (µAh) of
//! the whole capture, a time range, each instance of a slice or method, the
//! intervals where a context condition holds, or inside and outside a
//! problem.

use super::charge::PowerArgs;
use super::input::{open_loaded, safe};
use anyhow::{bail, Result};
use std::path::PathBuf;
use tracekit_analysis::problems::horizon;
use tracekit_attribution::context::{power_hints, PowerHint, PowerHintsReport};
use tracekit_attribution::report::{AttributionReport, By as ReportBy};
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

/// What `--by` splits the energy by.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum By {
    /// Each process (threads summed).
    Process,
    /// Each thread.
    Thread,
    /// Each method of the method trace (exclusive and inclusive energy).
    Method,
}

/// Arguments of `tracekit energy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    #[command(flatten)]
    charge: PowerArgs,
    /// Charge the energy to what ran: each process, thread or method (base
    /// power in its own row); the windows below restrict it.
    #[arg(long, value_enum)]
    by: Option<By>,
    /// Rank the context items against power: which context goes with high power.
    #[arg(long)]
    hints: bool,
    /// Rows to print (0 = all; JSON has all).
    #[arg(long, default_value_t = 25)]
    limit: usize,
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
    a.charge.line_up(&mut s, &a.input)?;
    let end = horizon(&s);
    let mut windows: Vec<Window> = Vec::new();
    if let (Some(f), Some(t)) = (a.from_us, a.to_us) {
        windows.push(tracekit_energy::range_us(f, t)?);
    }
    for name in &a.slices {
        let found = tracekit_energy::slice_instances(&s, name, end)?;
        if found.is_empty() {
            bail!("{name:?} never ran in this session");
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
    if a.by.is_some() || a.hints {
        return charge(&a, &s, &windows);
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
    let report = tracekit_energy::analyse(&s, &windows, &options)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    print_text(&report);
    Ok(())
}

/// `--by` and `--hints`: the energy charged to what ran, and context
/// against power.
fn charge(a: &Args, s: &tracekit_model::Session, windows: &[Window]) -> Result<()> {
    let prepared = a.charge.prepare(s)?;
    let window = (!windows.is_empty()).then(|| {
        tracekit_analysis::IntervalSet::from_intervals(
            windows
                .iter()
                .map(|w| tracekit_analysis::Interval {
                    start: w.from_ns,
                    end: w.to_ns,
                })
                .collect(),
        )
    });
    let report = a.by.map(|by| {
        let methods = matches!(by, By::Method);
        let at = a.charge.attribute(s, &prepared, window.clone(), methods, false, 0);
        let by = match by {
            By::Process => ReportBy::Process,
            By::Thread => ReportBy::Thread,
            By::Method => ReportBy::Method,
        };
        AttributionReport::new(s, &at, by)
    });
    let hints = a.hints.then(|| power_hints(s, &prepared.power, &prepared.power_tracks));
    if a.json {
        match (&report, hints) {
            (Some(r), None) => super::input::print_json(r)?,
            (Some(r), Some(h)) => {
                let mut v = serde_json::to_value(r)?;
                v["hints"] = serde_json::to_value(&h)?;
                super::input::print_json(&v)?;
            }
            (None, Some(h)) => super::input::print_json(&PowerHintsReport {
                power_source: prepared.source.clone(),
                hints: h,
            })?,
            (None, None) => {}
        }
        return Ok(());
    }
    println!("Power: {}", safe(&prepared.source));
    if let Some(r) = &report {
        print_attribution(r, a.limit);
    }
    if let Some(h) = &hints {
        if report.is_some() {
            println!();
        }
        print_power_hints(h, a.limit.clamp(1, 15));
    }
    Ok(())
}

/// Prints an attribution report as a table.
pub fn print_attribution(r: &AttributionReport, limit: usize) {
    println!(
        "Energy {:.4} J over {:.3} s; base {:.4} W ({}); weights: {}{}",
        r.measured_j,
        r.covered_s,
        r.base_w,
        r.base_rule,
        r.weights,
        if r.frequency_weighted {
            ", frequency-weighted"
        } else {
            ""
        }
    );
    let method = matches!(r.by, ReportBy::Method);
    if method {
        println!(
            "{:>12} {:>7} {:>12} {:>7} {:>9}  method",
            "excl J", "excl%", "incl J", "incl%", "calls"
        );
    } else {
        println!(
            "{:>12} {:>7}  {}",
            "energy J",
            "share",
            if matches!(r.by, ReportBy::Process) {
                "process"
            } else {
                "thread"
            }
        );
    }
    let n = if limit == 0 {
        r.rows.len()
    } else {
        limit.min(r.rows.len())
    };
    for row in &r.rows[..n] {
        let who = match (row.pid, row.tid) {
            (_, Some(t)) => format!("{} ({t})", safe(&row.name)),
            (Some(p), None) => format!("{} ({p})", safe(&row.name)),
            _ => safe(&row.name).into_owned(),
        };
        if method {
            println!(
                "{:>12.4} {:>6.2}% {:>12.4} {:>6.2}% {:>9}  {who}",
                row.energy_j,
                row.share_pct,
                row.incl_energy_j.unwrap_or(0.0),
                row.incl_energy_pct.unwrap_or(0.0),
                row.calls.unwrap_or(0)
            );
        } else {
            println!("{:>12.4} {:>6.2}%  {who}", row.energy_j, row.share_pct);
        }
    }
    if n < r.rows.len() {
        println!("… {} more (--limit 0 shows all)", r.rows.len() - n);
    }
    let pct = |e: f64| {
        if r.measured_j != 0.0 {
            100.0 * e / r.measured_j
        } else {
            0.0
        }
    };
    println!("{:>12.4} {:>6.2}%  (idle: base power)", r.idle_j, pct(r.idle_j));
    println!(
        "{:>12.4} {:>6.2}%  (unattributed: no thread ran)",
        r.unattributed_j,
        pct(r.unattributed_j)
    );
    if method {
        println!(
            "{:>12.4} {:>6.2}%  (threads outside any call)",
            r.outside_methods_j,
            pct(r.outside_methods_j)
        );
    }
    for n in &r.notes {
        println!("note: {}", safe(n));
    }
}

/// Prints context items ranked against power.
pub fn print_power_hints(h: &[PowerHint], limit: usize) {
    println!("Context against power, most power explained first (score: variance explained beyond chance, 0–1):");
    for (i, x) in h.iter().take(limit).enumerate() {
        let groups: Vec<String> = x
            .groups
            .iter()
            .take(3)
            .map(|g| {
                format!(
                    "{} {:.2} W ({:.0}% of time, {:.0}% of energy)",
                    safe(&g.value),
                    g.mean_power_w,
                    g.time_share * 100.0,
                    g.energy_share * 100.0
                )
            })
            .collect();
        println!(
            "  {:>2}. {:<32} {:<6} {:.2}  {}",
            i + 1,
            safe(&x.label),
            x.kind,
            x.score,
            groups.join("; ")
        );
    }
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

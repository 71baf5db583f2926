//! `tracekit power fit` and `tracekit power model`: power models over a
//! capture. `fit` fits the linear component model to the measured power
//! and writes it as a `power_profile.xml`; `model` drives a power profile
//! with the capture's tracks and sets it beside the measurement, the
//! fitted model and the emulator's instruction-cost estimate.

use super::charge::PowerArgs;
use super::input::{open_loaded, safe};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use tracekit_model::Session;
use tracekit_powermodel::{
    agreement, drive, linear::LinearFit, side_by_side, Agreement, CategoryCost, ComparedEstimate, DeviceProfile,
    InstructionCostModel, ModelEstimate, ModelledPower, Signals,
};

/// Arguments of `tracekit power fit`.
#[derive(Debug, clap::Args)]
pub struct FitArgs {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    #[command(flatten)]
    charge: PowerArgs,
    /// Write the fitted coefficients as an Android power_profile.xml.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    out: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of `tracekit power model`.
#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    #[command(flatten)]
    charge: PowerArgs,
    /// Also fit the linear model to the measured power and set it beside the others.
    #[arg(long)]
    fit: bool,
    /// An emulator run directory (`tracekit emu run`): its instruction-cost estimate joins the table.
    #[arg(long, value_name = "DIR")]
    emu: Option<PathBuf>,
    /// The categorization profile for `--emu` (default: the run's).
    #[arg(long, value_name = "NAME|FILE", requires = "emu")]
    emu_profile: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `power fit --json`.
#[derive(Serialize)]
struct FitReport<'a> {
    #[serde(flatten)]
    fit: &'a LinearFit,
    /// Where the measured power came from.
    power_source: String,
    /// The power_profile.xml written, if any.
    written: Option<String>,
}

/// `power model --json`.
#[derive(Serialize)]
struct ModelReport {
    /// The profile driven over the capture.
    modelled: ModelledPower,
    /// How the profile's power agrees with the measured one, if measured.
    agreement: Option<Agreement>,
    /// How the fitted model agrees with the measured power (`--fit`).
    fit_agreement: Option<Agreement>,
    /// Estimates side by side (the first is the reference when measured).
    estimates: Vec<ComparedEstimate>,
}

fn measured(s: &Session) -> Option<(Vec<i64>, Vec<f64>, String)> {
    let idx = tracekit_energy::EnergyIndex::build(s, &tracekit_energy::Options::default()).ok()?;
    let p = idx.power_samples()?;
    let names: Vec<String> = idx.sources().iter().map(|t| t.track.clone()).collect();
    Some((p.times, p.watts, names.join(" × ")))
}

fn layout(dev: Option<&DeviceProfile>) -> Option<Vec<Vec<u32>>> {
    dev.map(|d| {
        d.clusters
            .iter()
            .map(|c| (c.first_cpu..c.first_cpu + c.cores).collect())
            .collect()
    })
}

fn read_profile(path: &Path) -> Result<tracekit_model::power_profile::PowerProfile> {
    Ok(tracekit_power::read_profile_path(path)?.profile)
}

/// Runs `power fit`.
pub fn fit(a: FitArgs) -> Result<()> {
    let loaded = open_loaded(&a.input)?;
    let inputs = loaded.inputs.clone();
    let mut s = loaded.session;
    a.charge.line_up(&mut s, &a.input)?;
    let Some((times, watts, source)) = measured(&s) else {
        bail!(
            "{}: nothing in the capture measures power, so there is nothing to fit to (give --power OTHER)",
            a.input.display()
        );
    };
    let base = a.charge.power_profile.as_deref().map(read_profile).transpose()?;
    let cpus = s.counters.iter().filter_map(|c| c.cpu).max().map_or(1, |c| c + 1);
    let dev = base
        .as_ref()
        .map(|p| DeviceProfile::from_profile(p, cpus))
        .transpose()?;
    let f = tracekit_powermodel::fit(&s, &times, &watts, layout(dev.as_ref()).as_deref())?;
    let written = match &a.out {
        Some(out) => {
            if let Some(n) = tracekit_io::check_output(out, &inputs)? {
                super::note(n);
            }
            let profile = f.to_power_profile(base.as_ref());
            let mut header = vec![
                format!(
                    "Fitted by tracekit {} to {}",
                    env!("CARGO_PKG_VERSION"),
                    a.input.display()
                ),
                format!(
                    "{} samples of {source}; MAPE {:.2}%, R² {:.4}; verdict: {}",
                    f.error.samples, f.error.mape_pct, f.error.r2, f.quality.verdict
                ),
                format!(
                    "Currents in mA at {} V; each core's current at each speed seen is busy + busy×GHz × speed.",
                    tracekit_powermodel::NOMINAL_VOLTAGE_V
                ),
            ];
            let util = f
                .terms
                .iter()
                .find(|t| t.feature == tracekit_powermodel::Feature::CpuUtilisation);
            if let Some(t) = util {
                let lost = format!(
                    "the device CPU utilisation term ({:.3} W at 100%) has no place in power_profile.xml's per-core form and is not written: \
                     the profile models less power than the fit (record per-CPU scheduling or cpu_idle to fit per-core terms)",
                    t.coefficient_w
                );
                super::warning(&lost);
                header.push(format!("Note: {lost}."));
            }
            let notes = |name: &str| -> Option<String> {
                match name {
                    "cpu.idle" => Some("the fit's base: everything idle and off".into()),
                    "cpu.suspend" => Some("not observable in an awake capture".into()),
                    _ => None,
                }
            };
            std::fs::write(out, tracekit_power::write_profile(&profile, &header, &notes))
                .with_context(|| out.display().to_string())?;
            Some(out.display().to_string())
        }
        None => None,
    };
    if f.quality.verdict != "good" {
        super::warning(format_args!(
            "the fit is poor: {}",
            f.quality
                .reasons
                .iter()
                .map(|r| safe(r).into_owned())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    if a.json {
        return super::input::print_json(&FitReport {
            fit: &f,
            power_source: source,
            written,
        });
    }
    println!(
        "Linear power model fitted to {} ({} samples)",
        safe(&source),
        f.error.samples
    );
    println!("{:>12} {:>10}  term", "W per unit", "± s.e.");
    for t in &f.terms {
        println!("{:>12.5} {:>10.5}  {}", t.coefficient_w, t.std_error_w, t.name);
    }
    for d in &f.dropped {
        println!(
            "{:>12} {:>10}  {d} (left out: never varied, or a combination of others)",
            "—", ""
        );
    }
    for (k, c) in f.clusters.iter().enumerate() {
        println!("cluster{k}: cpus {:?}, {} speeds seen", c.cpus, c.speeds_khz.len());
    }
    println!(
        "error: MAPE {:.2}%, R² {:.4}, RMSE {:.4} W{}",
        f.error.mape_pct,
        f.error.r2,
        f.error.rmse_w,
        f.holdout.map_or(String::new(), |h| format!(
            "; held out: MAPE {:.2}%, R² {:.4}",
            h.mape_pct, h.r2
        ))
    );
    println!("verdict: {}", f.quality.verdict);
    for r in &f.quality.reasons {
        println!("  - {}", safe(r));
    }
    if let Some(w) = written {
        println!("wrote {}", safe(&w));
    }
    Ok(())
}

/// The emulator's categorization profile as an instruction-cost model.
fn cost_model(p: &tracekit_emu::profile::Profile) -> InstructionCostModel {
    let cat = |c: &tracekit_emu::profile::Category| CategoryCost {
        name: c.name.clone(),
        cycles: c.cycles,
        power_w: c.power_mw * 1e-3,
    };
    InstructionCostModel {
        name: p.name.clone(),
        freq_hz: p.freq_ghz * 1e9,
        categories: p.categories.iter().map(cat).collect(),
        default: cat(&p.default),
    }
}

/// Runs `power model`.
pub fn model(a: ModelArgs) -> Result<()> {
    let loaded = open_loaded(&a.input)?;
    let mut s = loaded.session;
    a.charge.line_up(&mut s, &a.input)?;
    let Some(path) = &a.charge.power_profile else {
        bail!("give the device's power profile: --power-profile power_profile.xml");
    };
    let profile = read_profile(path)?;
    let cpus = s
        .counters
        .iter()
        .filter_map(|c| c.cpu)
        .chain(s.sched.iter().map(|x| x.cpu))
        .max()
        .map_or(1, |c| c + 1);
    let dev = DeviceProfile::from_profile(&profile, cpus).with_context(|| path.display().to_string())?;
    let meas = measured(&s);
    let span = meas
        .as_ref()
        .and_then(|(t, _, _)| Some((*t.first()?, *t.last()?)))
        .or_else(|| s.time_span().map(|(a, b)| (a as i64, b as i64)));
    let m = drive(&dev, &s, span);
    let secs = |(a, b): (i64, i64)| (b - a) as f64 * 1e-9;
    let mut estimates = Vec::new();
    let mut reference = None;
    let (mut agree, mut fit_agree) = (None, None);
    if let Some((times, watts, source)) = &meas {
        let e: f64 = (1..times.len())
            .map(|k| watts[k] * (times[k] - times[k - 1]) as f64 * 1e-9)
            .sum();
        let d = secs((times[0], *times.last().unwrap_or(&times[0])));
        reference = Some(ModelEstimate {
            model: format!("measured ({source})"),
            kind: "measured",
            label: s.name.clone(),
            duration_s: d,
            energy_j: e,
            mean_power_w: if d > 0.0 { e / d } else { 0.0 },
            note: Some("each sample read as the mean since the previous one".into()),
        });
        agree = Some(agreement(&m.step(), times, watts));
        if a.fit {
            let f = tracekit_powermodel::fit(&s, times, watts, layout(Some(&dev)).as_deref())?;
            let sig = Signals::build(&s, &f.drivers);
            let pred = f.predict(&sig);
            let fa = agreement(&pred, times, watts);
            let fe = fa.energy_ratio * e;
            estimates.push(ModelEstimate {
                model: "linear model fitted here".into(),
                kind: "linear",
                label: s.name.clone(),
                duration_s: d,
                energy_j: fe,
                mean_power_w: if d > 0.0 { fe / d } else { 0.0 },
                note: Some(format!("fit verdict: {}", f.quality.verdict)),
            });
            fit_agree = Some(fa);
        }
    } else if a.fit {
        bail!("--fit needs measured power, and the capture has none");
    }
    estimates.insert(
        0,
        ModelEstimate {
            model: format!("power profile ({})", path.display()),
            kind: "power_profile",
            label: s.name.clone(),
            duration_s: secs(m.span_ns),
            energy_j: m.energy_j,
            mean_power_w: m.mean_power_w,
            note: None,
        },
    );
    if let Some(dir) = &a.emu {
        let analysis = tracekit_emu::run::analysis_for(dir, a.emu_profile.as_deref())?;
        let p = tracekit_emu::run::resolve_profile(dir, a.emu_profile.as_deref().unwrap_or(&analysis.profile.name))?;
        let total = analysis.total();
        let counts: Vec<(String, u64)> = total.categories.into_iter().collect();
        estimates.push(cost_model(&p).estimate(&dir.display().to_string(), &counts));
    }
    let rows = side_by_side(reference.as_ref(), &estimates);
    for n in &m.notes {
        super::note(format_args!("power model: {}", n));
    }
    if a.json {
        return super::input::print_json(&ModelReport {
            modelled: m,
            agreement: agree,
            fit_agreement: fit_agree,
            estimates: rows,
        });
    }
    println!(
        "Power profile {} over {}:",
        safe(&path.display().to_string()),
        safe(&s.name)
    );
    for c in &m.components {
        println!("  {:<8} {:>10.4} J {:>8.4} W", c.component, c.energy_j, c.mean_power_w);
    }
    if let Some(g) = agree {
        println!(
            "against the measured power: MAPE {:.1}%, R² {:.3}, energy ×{:.3}",
            g.mape_pct, g.r2, g.energy_ratio
        );
    }
    if let Some(g) = fit_agree {
        println!("fitted model: MAPE {:.1}%, R² {:.3}", g.mape_pct, g.r2);
    }
    println!(
        "\n{:>12} {:>10} {:>10} {:>9}  model",
        "energy J", "mean W", "time s", "vs ref"
    );
    // Fixed decimals, or four significant digits for what they would show
    // as 0 (an emulated run of microseconds).
    let num = |x: f64, decimals: usize| {
        if x != 0.0 && x.abs() < 10f64.powi(-(decimals as i32)) {
            format!("{x:.3e}")
        } else {
            format!("{x:.decimals$}")
        }
    };
    for r in &rows {
        let e = &r.estimate;
        println!(
            "{:>12} {:>10.4} {:>10} {:>9}  {}",
            num(e.energy_j, 4),
            e.mean_power_w,
            num(e.duration_s, 3),
            r.energy_vs_reference_pct
                .map_or("—".into(), |p| if p != 0.0 && p < 0.1 {
                    format!("{p:.1e}%")
                } else {
                    format!("{p:.1}%")
                }),
            safe(&e.model)
        );
    }
    Ok(())
}

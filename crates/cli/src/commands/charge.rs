//! What the commands that charge energy share: where the power comes from
//! (the session's own tracks, another capture lined up on the wall clock,
//! or a power profile driven by the session's tracks when nothing
//! measures power), the base power, and a CPU model for frequency weights.

use super::input::open_loaded;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use tracekit_attribution::{attribute, Attribution, BaseRule, Options, PowerSamples};
use tracekit_energy::curve::Rule;
use tracekit_model::Session;
use tracekit_powermodel::DeviceProfile;

/// Where power comes from and how it is shared.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PowerArgs {
    /// Power data from another capture of the same run (a systrace, a power
    /// file, a `tracekit power record` directory), lined up with INPUT on
    /// the wall clock.
    #[arg(long, value_name = "INPUT")]
    pub power: Option<PathBuf>,
    /// Base (idle) power, W, set aside before the rest is shared among
    /// threads (default: the 5th percentile of the power, weighted by time).
    #[arg(long, value_name = "WATTS")]
    pub base_w: Option<f64>,
    /// An Android power_profile.xml: weights CPUs by their modelled power at
    /// their frequency, and models the power from the session's tracks when
    /// nothing measures it.
    #[arg(long, value_name = "XML")]
    pub power_profile: Option<PathBuf>,
}

/// The power to charge, and what it is.
pub struct Prepared {
    /// Power samples on the session's timeline.
    pub power: PowerSamples,
    /// One line saying where they came from.
    pub source: String,
    /// The device profile, when one was given.
    pub device: Option<DeviceProfile>,
    /// Labels of the tracks the power came from (left out of power hints).
    pub power_tracks: Vec<String>,
}

/// Bins of the stacked power rows in the viewer.
pub const VIEW_BINS: usize = 2048;

impl PowerArgs {
    /// True when the user asked for a power source.
    pub fn given(&self) -> bool {
        self.power.is_some() || self.power_profile.is_some() || self.base_w.is_some()
    }

    /// Charges the power to every call and adds the energy columns and the
    /// stacked power rows to `view`. Without power data it does nothing
    /// (an error when the user asked for power).
    pub fn attach_to_view(&self, view: &mut tracekit_report::ViewModel, s: &Session) -> Result<()> {
        let prepared = match self.prepare(s) {
            Ok(p) => p,
            Err(e) if self.given() => return Err(e),
            Err(_) => return Ok(()),
        };
        derived_rows(view, &prepared);
        let at = self.attribute(s, &prepared, None, false, true, VIEW_BINS);
        if !tracekit_attribution::calls::attach(&mut view.threads, s, &at) {
            super::note("the call slices do not match the session; energy columns left out");
            return Ok(());
        }
        let summary = serde_json::json!({
            "source": prepared.source,
            "measuredJ": at.measured_j,
            "idleJ": at.idle_j,
            "unattributedJ": at.unattributed_j,
            "baseW": at.base_w,
            "weights": at.weights,
        });
        let stack = serde_json::to_value(&at.bins)?;
        view.set_energy(summary, stack);
        Ok(())
    }

    /// Lines up `--power` with `s` (opened from `input`).
    pub fn line_up(&self, s: &mut Session, input: &Path) -> Result<()> {
        if let Some(p) = &self.power {
            let other = open_loaded(p)?.session;
            let shift = tracekit_io::line_up(s, other, p)?;
            super::note(format_args!(
                "{} lined up with {} on the wall clock (shifted by {:.6} s)",
                p.display(),
                input.display(),
                shift as f64 * 1e-9
            ));
        }
        Ok(())
    }

    fn device(&self, s: &Session) -> Result<Option<DeviceProfile>> {
        let Some(path) = &self.power_profile else {
            return Ok(None);
        };
        let read = tracekit_power::read_profile_path(path)?;
        for (what, n) in &read.skipped {
            super::note(format_args!("{}: {n} <{what}> element(s) not read", path.display()));
        }
        let cpus = s
            .counters
            .iter()
            .filter_map(|c| c.cpu)
            .chain(s.sched.iter().map(|x| x.cpu))
            .max()
            .map_or(1, |c| c + 1);
        let dev = DeviceProfile::from_profile(&read.profile, cpus).with_context(|| path.display().to_string())?;
        Ok(Some(dev))
    }

    /// The session's measured power, or the profile's model of it.
    pub fn prepare(&self, s: &Session) -> Result<Prepared> {
        let device = self.device(s)?;
        let measured = tracekit_energy::EnergyIndex::build(s, &tracekit_energy::Options::default());
        if let Ok(idx) = &measured {
            if let Some(power) = idx.power_samples() {
                let tracks: Vec<String> = idx.sources().iter().map(|t| t.track.clone()).collect();
                return Ok(Prepared {
                    power,
                    source: format!("measured: {}", tracks.join(" × ")),
                    device,
                    power_tracks: tracks,
                });
            }
        }
        if let Some(dev) = &device {
            let m = tracekit_powermodel::drive(dev, s, None);
            for n in &m.notes {
                super::note(format_args!("power model: {n}"));
            }
            super::note("nothing in the capture measures power: the power profile's model stands in for it");
            return Ok(Prepared {
                power: PowerSamples {
                    times: m.track.times.clone(),
                    watts: m.track.values.clone(),
                    rule: Rule::LeftHold,
                },
                source: format!(
                    "modelled from {}",
                    self.power_profile
                        .as_ref()
                        .map_or(String::new(), |p| p.display().to_string())
                ),
                device,
                power_tracks: Vec::new(),
            });
        }
        match measured {
            Err(e) => {
                bail!("{e} (give --power OTHER for a capture that measured it, or --power-profile XML to model it)")
            }
            Ok(_) => bail!("the capture gives charge only, no power (give --power-profile XML to model it)"),
        }
    }

    /// Charges the power to what ran: `methods` per method, `window` only.
    pub fn attribute(
        &self,
        s: &Session,
        p: &Prepared,
        window: Option<tracekit_analysis::IntervalSet>,
        methods: bool,
        record_calls: bool,
        bins: usize,
    ) -> Attribution {
        let o = Options {
            base: self.base_w.map_or(BaseRule::default(), BaseRule::Watts),
            window,
            cpu_power: p.device.as_ref().map(|d| d as &dyn tracekit_powermodel::CorePower),
            methods,
            record_calls,
            bins,
            ..Options::default()
        };
        let a = attribute(s, &p.power, &o);
        for n in &a.notes {
            super::note(n);
        }
        a
    }
}

/// The power the attribution charges, as timeline rows: P in W (when it is
/// derived, from V·I or a model, rather than read as one power track) and
/// the cumulative energy in J, integrated by the same rule.
fn derived_rows(view: &mut tracekit_report::ViewModel, p: &Prepared) {
    let (t, w) = (&p.power.times, &p.power.watts);
    if t.is_empty() {
        return;
    }
    if p.power_tracks.len() != 1 {
        let name = match p.power_tracks.len() {
            0 => "Power (modelled)".to_string(),
            _ => format!("Power ({})", p.power_tracks.join(" × ")),
        };
        view.add_derived_counter(&name, "W", t, w);
    }
    view.add_derived_counter("Energy (cumulative)", "J", t, &cumulative_j(&p.power));
    // The power and its rule beside it, so the page can take the energy of
    // any interval exactly (a problem's inside and outside).
    let rule = match p.power.rule {
        Rule::Trapezoid => "trapezoid",
        Rule::LeftHold => "left-hold",
        Rule::RightHold => "right-hold",
    };
    view.set_energy_curve(w, rule);
}

/// Energy from the first sample to each sample, J.
fn cumulative_j(p: &PowerSamples) -> Vec<f64> {
    let mut e = 0.0;
    let mut out = Vec::with_capacity(p.times.len());
    for k in 0..p.times.len() {
        if k > 0 {
            let dt = (p.times[k] - p.times[k - 1]) as f64 * 1e-9;
            let (a, b) = (p.watts[k - 1], p.watts[k]);
            e += dt
                * match p.rule {
                    Rule::Trapezoid => 0.5 * (a + b),
                    Rule::LeftHold => a,
                    Rule::RightHold => b,
                };
        }
        out.push(e);
    }
    out
}

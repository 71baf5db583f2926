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

impl PowerArgs {
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

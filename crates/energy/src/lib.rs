//! Energy (J), mean power (W) and charge (µAh) over any window of a
//! session's power tracks, with the current's sign decided and reported,
//! the fuel gauge's behaviour measured, and error bounds.
//!
//! This is analysis: it reads a [`Session`] (whatever file or sampler
//! filled it, under the names of [`tracekit_model::power`]) and never a
//! file.
//!
//! # Sources
//! One source gives the energy, the first present unless
//! [`Options::source`] says otherwise:
//! 1. battery **voltage × current** (`V·I`, on the union of both tracks'
//!    sample instants, each track linear between its samples);
//! 2. a **power** track (W, positive = drawn);
//! 3. an **energy counter** (J): a [`CounterKind::Cumulative`] track counts
//!    energy consumed and may wrap (at the range the session gives under
//!    [`power::wrap_range_key`], or [`Options::wrap_range_j`]); its deltas
//!    survive the wrap, and a fall without a known range is a reset. Any
//!    other energy track is energy *left*, whose fall is consumption;
//! 4. the **charge counter × voltage** (−ΔQ × V̄ per interval);
//! 5. **current** alone, times [`Options::nominal_voltage_v`] (a power
//!    monitor's supply voltage); without one, only charge is reported.
//!
//! A session without a counter track of a role's name may hold the quantity
//! as a context item instead: seed 000's context logger writes the battery
//! as `Battery voltage` (mV) and `Battery current` (µA, negative while
//! discharging, as Android documents it) into the `.clog`, which has no
//! units. [`TrackNames::context_aliases`] lists such items with their units
//! and documented sign ([`ContextAlias::android_logger`] by default).
//!
//! The other sources present are integrated over the same windows as
//! [`CrossCheck`]s; the charge counter's is the seed's "Δcharge × mean
//! voltage".
//!
//! # Integration
//! Rates (power, current) are integrated by **trapezoid** (linear between
//! samples) or **left-hold** (each sample held until the next). Every sample
//! carries the integral from the first sample, so a window `[a, b]` costs
//! two binary searches: `E(b) − E(a)`, where the partial interval at each
//! edge is integrated under the same rule (the linearly interpolated value
//! at the edge for trapezoid, the held value for left-hold). Energy over
//! adjacent windows therefore adds up to the energy over their union, to
//! float rounding. Before the first and after the last sample there is no
//! data and no energy; [`WindowEnergy::covered_us`] says how much of a
//! window had data, and mean power is energy over covered time. Counters
//! are read linearly between samples.
//!
//! # Current sign
//! Current is normalised to "positive = drawn from the battery"; see
//! [`sign`] for how the convention is decided and reported.
//!
//! # Gauge behaviour
//! See [`gauge`]: stale samples (no input changed), the gauge's update
//! period (mean time between changes), its resolution (smallest step), and
//! pairs of samples too close for one sampler.
//!
//! # Error bounds
//! `bounds_j = [lo, hi]` of a window is the spread of the estimates a
//! different but equally justified reading of the samples gives, widened by
//! the resolution:
//! - **sampling**: the trapezoid, left-hold and right-hold integrals (the
//!   signal between samples is unknown; for a signal monotone between
//!   samples the truth lies between the two holds); for counters, the
//!   increment counted at the start or at the end of the intervals cut by
//!   the window's edges;
//! - **gauge lag**: a value read at `t` was measured up to one gauge update
//!   period `T` earlier, so the window's energy is also estimated over
//!   `[a + δ, b + δ]` for δ = 0, T/2 and T (T is the sampling period when
//!   no sample repeated), the last rate carrying on past the data's end;
//! - **resolution**: each sample may be off by half a step, so
//!   `(V̄·ΔI/2 + Ī·ΔV/2) × covered time` for `V·I` (`ΔP/2 × time` for power,
//!   one step for a counter's two edges). Steps come from
//!   [`Options::resolution`] or, failing that, the smallest step seen
//!   (an upper bound, so the bounds stay conservative).
//!
//! `lo` is the smallest candidate minus the resolution term and `hi` the
//! largest plus it. A window shorter than the gauge's update period (the
//! sampling period when unknown), or partly outside the data, is marked
//! [`WindowEnergy::uncertain`], with the reason.

pub mod curve;
pub mod gauge;
mod index;
mod report;
pub mod sign;
mod source;
pub mod windows;

pub use gauge::{SamplerPair, TrackGauge};
pub use index::{EnergyIndex, PowerSamples};
pub use report::{CrossCheck, EnergyReport, Estimates, WindowEnergy};
pub use sign::{Confidence, CurrentSign, SignBasis, SignDecision};
pub use source::{ContextAlias, SourceTrack, TrackNames};
pub use windows::{complement, condition_intervals, problem_windows, range_us, slice_instances, Window};

use serde::Serialize;
use tracekit_model::{power, CounterKind, Session};

/// How energy was (or is to be) computed; serialised as `"trapezoid"`,
/// `"left_hold"`, `"energy_counter"` or `"charge_counter"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Rates linear between samples.
    #[default]
    Trapezoid,
    /// Rates held from each sample to the next.
    LeftHold,
    /// Deltas of an energy counter.
    EnergyCounter,
    /// Charge counter deltas times voltage.
    ChargeCounter,
}

impl Method {
    /// Parses `trapezoid` or `left-hold` (`left_hold`).
    pub fn parse(s: &str) -> Option<Method> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "trapezoid" => Some(Method::Trapezoid),
            "left-hold" => Some(Method::LeftHold),
            _ => None,
        }
    }
}

/// Which source gives the energy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SourceChoice {
    /// The first present, in the order of the crate docs.
    #[default]
    Auto,
    /// Voltage × current.
    VoltageCurrent,
    /// The power track.
    Power,
    /// The energy counter.
    EnergyCounter,
    /// Charge counter × voltage.
    ChargeCounter,
    /// Current × the nominal voltage.
    Current,
}

/// The smallest step of each quantity, when known (the seed's gauge:
/// current 156 µA, charge 500 µAh).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Resolution {
    /// Volts.
    pub voltage_v: Option<f64>,
    /// Amperes.
    pub current_a: Option<f64>,
    /// Watts.
    pub power_w: Option<f64>,
    /// Joules.
    pub energy_j: Option<f64>,
    /// µAh.
    pub charge_uah: Option<f64>,
}

/// What to compute and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Trapezoid or left-hold for rates.
    pub method: Method,
    /// Which source gives the energy.
    pub source: SourceChoice,
    /// The current's sign convention, or `Auto`.
    pub current_sign: CurrentSign,
    /// Track names, the model's by default.
    pub tracks: TrackNames,
    /// Supply voltage for current-only captures (a power monitor's).
    pub nominal_voltage_v: Option<f64>,
    /// Known resolutions.
    pub resolution: Resolution,
    /// The gauge's update period, when known better than the estimate.
    pub gauge_period_ms: Option<f64>,
    /// Range at which the energy counter wraps, J, overriding the session's.
    pub wrap_range_j: Option<f64>,
}

/// Why energy could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The session has no track energy can come from.
    #[error("no power data: the session has no {wanted} track (counter tracks present: {present})")]
    NoPowerData {
        /// What was looked for.
        wanted: String,
        /// What the session has.
        present: String,
    },
    /// A track's unit cannot be converted.
    #[error("track {track:?} is in {unit:?}, which does not convert to {want}")]
    Unit {
        /// Track.
        track: String,
        /// Its unit.
        unit: String,
        /// The unit wanted.
        want: String,
    },
    /// A track holds NaN or infinity.
    #[error("track {track:?} holds a value that is not a finite number")]
    NonFinite {
        /// Track.
        track: String,
    },
    /// A track's times go backwards.
    #[error("track {track:?} has timestamps that go backwards")]
    Unsorted {
        /// Track.
        track: String,
    },
    /// No method or async slice has that name.
    #[error("no method or slice matches {0:?}")]
    UnknownSlice(String),
    /// A window cannot be formed.
    #[error("window: {0}")]
    Window(String),
    /// A condition or problem could not be evaluated.
    #[error(transparent)]
    Analysis(#[from] tracekit_analysis::Error),
}

/// Energy over `windows` (the whole capture when empty).
pub fn analyse(session: &Session, windows: &[Window], options: &Options) -> Result<EnergyReport, Error> {
    Ok(EnergyIndex::build(session, options)?.report(windows))
}

/// Power in watts drawn by `current_ua` µA at `voltage_v` V, in mW: the
/// conversion Perfetto documents for its battery counters.
pub fn power_mw(current_ua: f64, voltage_v: f64) -> f64 {
    current_ua * 1e-6 * voltage_v * 1e3
}

fn counter_names(session: &Session) -> String {
    let mut names: Vec<&str> = session.counters.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

fn wrap_from_session(session: &Session, track: &str, kind: CounterKind) -> Option<f64> {
    if kind != CounterKind::Cumulative {
        return None;
    }
    if let Some(w) = session
        .counters
        .iter()
        .find(|c| c.name == track)
        .and_then(|c| c.wraps_at)
    {
        return Some(w);
    }
    let key = power::wrap_range_key(track);
    session
        .properties
        .iter()
        .rev()
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfetto_conversions() {
        assert!((power_mw(710_000.0, 11.9) - 8449.0).abs() < 1e-9);
        assert!((power_mw(510_000.0, 12.0) - 6120.0).abs() < 1e-9);
        assert_eq!(Method::parse("left_hold"), Some(Method::LeftHold));
    }
}

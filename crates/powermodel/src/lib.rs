//! Power models, in one layer: where nothing measures power they estimate
//! it, where something does they split it among components and say how
//! far off they are.
//!
//! - [`DeviceProfile`]: Android's `power_profile.xml` (read by
//!   `tracekit-power` into a [`PowerProfile`]) as CPU clusters with their
//!   per-speed core currents and the other components' currents.
//!   [`profile_model::drive`] runs it over a session's tracks (per-CPU
//!   frequency and running state, screen, brightness, Wi-Fi, traffic,
//!   radio, GPS; see [`signals`]) into a power track with a per-component
//!   breakdown.
//! - [`linear`]: a PowerTutor-style linear component model fitted by least
//!   squares to a measured power track, with MAPE and R² (also held out),
//!   a verdict that refuses to call a mismatched form good, and the
//!   coefficients as a power profile to keep
//!   ([`LinearFit::to_power_profile`]).
//! - [`instructions`]: the emulator's instruction-category costs (seed 001)
//!   as an estimate of time and energy from instruction counts.
//! - [`compare`]: estimates side by side, and how a modelled power track
//!   agrees with a measured one.
//! - [`CorePower`]: what one running core draws at a frequency, which
//!   attribution uses to weight CPUs.
//!
//! This is analysis: it reads a [`tracekit_model::Session`] and a
//! [`PowerProfile`], never a file.

pub mod compare;
pub mod device;
pub mod instructions;
pub mod linear;
mod lsq;
pub mod profile_model;
pub mod signals;

pub use compare::{agreement, side_by_side, Agreement, ComparedEstimate};
pub use device::{Cluster, DeviceProfile, NOMINAL_VOLTAGE_V};
pub use instructions::{CategoryCost, InstructionCostModel};
pub use linear::{fit, Feature, FitFailure, LinearFit, Quality, Term};
pub use profile_model::{drive, ComponentEnergy, ModelledPower, MODELLED_POWER};
pub use signals::{Drivers, Signals, Step};
pub use tracekit_model::power_profile::PowerProfile;

use serde::Serialize;

/// Why a model could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The power profile's items do not describe a device.
    #[error("power profile: {0}")]
    Profile(String),
}

/// Energy and mean power one model gives for one stretch of work.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelEstimate {
    /// Which model.
    pub model: String,
    /// `measured`, `power_profile`, `linear` or `instructions`.
    pub kind: &'static str,
    /// What was estimated (a window, a process).
    pub label: String,
    /// Duration, s (for `instructions`, the estimated execution time).
    pub duration_s: f64,
    /// Energy, J.
    pub energy_j: f64,
    /// Mean power, W.
    pub mean_power_w: f64,
    /// How it was obtained.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What one running CPU core draws at a frequency: the weight attribution
/// gives a thread on that core.
pub trait CorePower {
    /// Power of one running core `cpu` at `khz`, W; `None` when the model
    /// does not know the CPU.
    fn core_power_w(&self, cpu: u32, khz: f64) -> Option<f64>;
}

impl CorePower for DeviceProfile {
    fn core_power_w(&self, cpu: u32, khz: f64) -> Option<f64> {
        self.core_ma(cpu, khz).map(|ma| self.watts(ma))
    }
}

impl CorePower for LinearFit {
    fn core_power_w(&self, cpu: u32, khz: f64) -> Option<f64> {
        LinearFit::core_power_w(self, cpu, khz)
    }
}

//! Names and units of the power tracks every reader and sampler agrees on.
//!
//! Readers of power data (ftrace's `write_power_ringbuffer` lines, atrace
//! `C|` counters from a sampler, Trepn, BattOr, Perfetto battery counters,
//! the Linux sampler) convert values to the units below and store them as
//! [`CounterTrack`](crate::CounterTrack)s under these names, so the energy
//! analysis finds them whatever file they came from. Current keeps the sign
//! its source gave it; the analysis decides the convention and says so.

/// Battery terminal voltage, volts ([`CounterKind::Sampled`](crate::CounterKind)).
pub const BATTERY_VOLTAGE: &str = "battery voltage";
/// Battery current, amperes, sign as the source reported it.
pub const BATTERY_CURRENT: &str = "battery current";
/// Power drawn, watts.
pub const BATTERY_POWER: &str = "battery power";
/// The fuel gauge's charge counter, µAh (falls while discharging).
pub const BATTERY_CHARGE: &str = "battery charge";
/// Energy left in the battery or an energy counter, joules.
pub const BATTERY_ENERGY: &str = "battery energy";
/// State of charge, percent.
pub const BATTERY_CAPACITY: &str = "battery capacity";
/// Battery temperature, °C.
pub const BATTERY_TEMPERATURE: &str = "battery temperature";
/// The supply's `status` text (`Charging`, `Discharging`, `Full`, …), a
/// string context item; it tells the energy analysis which way current flows.
pub const BATTERY_STATUS: &str = "battery status";

/// Unit of [`BATTERY_VOLTAGE`].
pub const VOLT: &str = "V";
/// Unit of [`BATTERY_CURRENT`].
pub const AMPERE: &str = "A";
/// Unit of power tracks.
pub const WATT: &str = "W";
/// Unit of energy tracks.
pub const JOULE: &str = "J";
/// Unit of [`BATTERY_CHARGE`].
pub const MICRO_AMPERE_HOUR: &str = "µAh";

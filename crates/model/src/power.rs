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

/// Battery state, a string context item holding the kernel's
/// `power_supply` status words: [`STATUS_CHARGING`], [`STATUS_DISCHARGING`],
/// [`STATUS_NOT_CHARGING`], [`STATUS_FULL`] or [`STATUS_UNKNOWN`]. Readers map
/// their source's codes onto these (Android's `BatteryManager` numbers,
/// batterystats' `status=` words) so the energy analysis can tell which way
/// current flows.
pub const BATTERY_STATUS: &str = "battery status";
/// [`BATTERY_STATUS`] while the battery charges.
pub const STATUS_CHARGING: &str = "Charging";
/// [`BATTERY_STATUS`] while the battery discharges.
pub const STATUS_DISCHARGING: &str = "Discharging";
/// [`BATTERY_STATUS`] when a charger is present but not charging.
pub const STATUS_NOT_CHARGING: &str = "Not charging";
/// [`BATTERY_STATUS`] when the battery is full.
pub const STATUS_FULL: &str = "Full";
/// [`BATTERY_STATUS`] when the source does not know.
pub const STATUS_UNKNOWN: &str = "Unknown";

/// Battery temperature, degrees Celsius.
pub const BATTERY_TEMPERATURE: &str = "battery temperature";
/// Unit of [`BATTERY_TEMPERATURE`].
pub const DEGREE_CELSIUS: &str = "°C";

/// Session property a reader sets when its source documents the sign of
/// [`BATTERY_CURRENT`]: [`SIGN_POSITIVE_IS_DISCHARGE`] or
/// [`SIGN_NEGATIVE_IS_DISCHARGE`]. The energy analysis prefers it to
/// guessing from the data.
pub const CURRENT_SIGN_PROPERTY: &str = "battery current sign";
/// Value of [`CURRENT_SIGN_PROPERTY`]: positive current drains the battery.
pub const SIGN_POSITIVE_IS_DISCHARGE: &str = "positive is discharge";
/// Value of [`CURRENT_SIGN_PROPERTY`]: negative current drains the battery
/// (the kernel's documented `current_now` convention).
pub const SIGN_NEGATIVE_IS_DISCHARGE: &str = "negative is discharge";

/// The session property that gives the value at which a
/// [`CounterKind::Cumulative`](crate::CounterKind) track wraps to zero, in
/// the track's unit (powercap's `max_energy_range_uj`, converted): key
/// `"<track name> wraps at"`, value a decimal number. A counter that goes
/// backwards without one is treated as reset.
pub fn wrap_range_key(track_name: &str) -> String {
    format!("{track_name} wraps at")
}

#[cfg(test)]
mod tests {
    #[test]
    fn wrap_key_names_the_track() {
        assert_eq!(
            super::wrap_range_key("rapl package-0 energy"),
            "rapl package-0 energy wraps at"
        );
    }
}

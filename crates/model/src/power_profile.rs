//! A device's power profile: the items and arrays of Android's
//! `power_profile.xml` (CPU clusters, core speeds and per-speed current,
//! screen, radios, GPS, battery capacity), kept by name in document order.
//!
//! The format crate (`tracekit-power`) reads and writes the XML; power
//! models (`tracekit-powermodel`) interpret the names. Values are as AOSP
//! writes them: currents in mA, speeds in kHz, capacity in mAh, voltages in
//! mV.

use serde::{Deserialize, Serialize};

/// One value of a power profile: a single `<item>` or an `<array>` of `<value>`s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProfileValue {
    /// `<item name="…">x</item>`.
    Item(f64),
    /// `<array name="…"><value>x</value>…</array>`.
    Array(Vec<f64>),
}

/// A named entry of a power profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileEntry {
    /// The item's name, such as `cpu.active` or `cpu.core_power.cluster0`.
    pub name: String,
    /// Its value.
    pub value: ProfileValue,
}

/// A whole power profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PowerProfile {
    /// The `<device name="…">` attribute (AOSP writes `Android`).
    pub device: Option<String>,
    /// Entries in document order; a later entry of the same name wins.
    pub entries: Vec<ProfileEntry>,
}

impl PowerProfile {
    /// An empty profile for `device`.
    pub fn new(device: impl Into<String>) -> PowerProfile {
        PowerProfile {
            device: Some(device.into()),
            entries: Vec::new(),
        }
    }

    fn find(&self, name: &str) -> Option<&ProfileValue> {
        self.entries.iter().rev().find(|e| e.name == name).map(|e| &e.value)
    }

    /// The single value `name` (the first element of an array of that name,
    /// as Android's `PowerProfile.getAveragePower` reads it).
    pub fn item(&self, name: &str) -> Option<f64> {
        match self.find(name)? {
            ProfileValue::Item(v) => Some(*v),
            ProfileValue::Array(v) => v.first().copied(),
        }
    }

    /// The array `name` (a single item reads as a one-element array).
    pub fn array(&self, name: &str) -> Option<Vec<f64>> {
        match self.find(name)? {
            ProfileValue::Item(v) => Some(vec![*v]),
            ProfileValue::Array(v) => Some(v.clone()),
        }
    }

    /// Sets (or replaces) the item `name`.
    pub fn set_item(&mut self, name: &str, value: f64) {
        self.set(name, ProfileValue::Item(value));
    }

    /// Sets (or replaces) the array `name`.
    pub fn set_array(&mut self, name: &str, values: Vec<f64>) {
        self.set(name, ProfileValue::Array(values));
    }

    fn set(&mut self, name: &str, value: ProfileValue) {
        match self.entries.iter_mut().find(|e| e.name == name) {
            Some(e) => e.value = value,
            None => self.entries.push(ProfileEntry {
                name: name.to_owned(),
                value,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_and_arrays_by_name() {
        let mut p = PowerProfile::new("Android");
        p.set_item("cpu.idle", 5.4);
        p.set_array("cpu.clusters.cores", vec![4.0, 3.0, 1.0]);
        assert_eq!(p.item("cpu.idle"), Some(5.4));
        assert_eq!(p.item("cpu.clusters.cores"), Some(4.0));
        assert_eq!(p.array("cpu.idle"), Some(vec![5.4]));
        assert_eq!(p.array("nothing"), None);
        p.set_item("cpu.idle", 6.0);
        assert_eq!((p.entries.len(), p.item("cpu.idle")), (2, Some(6.0)));
        p.entries.push(ProfileEntry {
            name: "cpu.idle".into(),
            value: ProfileValue::Item(7.0),
        });
        assert_eq!(p.item("cpu.idle"), Some(7.0), "a later duplicate wins");
    }
}

//! A [`PowerProfile`]'s items read as a device: CPU clusters with their
//! speeds and per-speed core currents, and the other components' currents.

use crate::Error;
use serde::Serialize;
use tracekit_model::power_profile::PowerProfile;

/// Nominal battery voltage used to turn the profile's mA into W when
/// nothing better is known (a Li-ion cell's nominal 3.7 V; AOSP profiles
/// give 3700 mV for their controllers).
pub const NOMINAL_VOLTAGE_V: f64 = 3.7;

/// One CPU cluster (a frequency domain).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cluster {
    /// First CPU number of the cluster (clusters number their CPUs in order).
    pub first_cpu: u32,
    /// Number of cores.
    pub cores: u32,
    /// Speeds, kHz, rising.
    pub speeds_khz: Vec<f64>,
    /// Current of one running core at each speed, mA (excluding cluster and
    /// `cpu.active` costs).
    pub core_ma: Vec<f64>,
    /// Current of the cluster itself while any of its cores runs, mA.
    pub cluster_ma: f64,
}

impl Cluster {
    /// The core current at `khz`: linear between the listed speeds, the end
    /// values beyond them.
    pub fn core_ma_at(&self, khz: f64) -> f64 {
        let (s, p) = (&self.speeds_khz, &self.core_ma);
        match s.len() {
            0 => 0.0,
            1 => p[0],
            n => {
                if khz <= s[0] {
                    return p[0];
                }
                if khz >= s[n - 1] {
                    return p[n - 1];
                }
                let i = s.partition_point(|&x| x <= khz);
                let f = (khz - s[i - 1]) / (s[i] - s[i - 1]);
                p[i - 1] + (p[i] - p[i - 1]) * f
            }
        }
    }

    /// True when `cpu` belongs to this cluster.
    pub fn has(&self, cpu: u32) -> bool {
        cpu >= self.first_cpu && cpu < self.first_cpu + self.cores
    }
}

/// What a device's components draw, mA (from its power profile).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceProfile {
    /// CPU clusters in CPU order.
    pub clusters: Vec<Cluster>,
    /// `cpu.suspend`: the device asleep.
    pub suspend_ma: f64,
    /// `cpu.idle` (or the older `cpu.awake`): awake, every CPU idle.
    pub idle_ma: f64,
    /// `cpu.active`: extra while any CPU runs.
    pub active_ma: f64,
    /// `screen.on`: screen on at minimum brightness.
    pub screen_on_ma: Option<f64>,
    /// `screen.full`: extra at full brightness.
    pub screen_full_ma: Option<f64>,
    /// Wi-Fi on and idle (`wifi.on` or `wifi.controller.idle`).
    pub wifi_on_ma: Option<f64>,
    /// Wi-Fi receiving (`wifi.active` or `wifi.controller.rx`).
    pub wifi_rx_ma: Option<f64>,
    /// Wi-Fi transmitting (`wifi.active` or `wifi.controller.tx`).
    pub wifi_tx_ma: Option<f64>,
    /// Mobile radio active (`radio.active`, or the modem's mean transmit current).
    pub radio_active_ma: Option<f64>,
    /// GPS on (`gps.on`, or the mean of `gps.signalqualitybased`).
    pub gps_on_ma: Option<f64>,
    /// `battery.capacity`, mAh.
    pub battery_mah: Option<f64>,
    /// Voltage that turns mA into W.
    pub voltage_v: f64,
    /// How items were read (older names, missing parts).
    pub notes: Vec<String>,
}

impl DeviceProfile {
    /// Reads the profile's items. Clusters come from `cpu.clusters.cores`
    /// with `cpu.core_speeds.clusterN` / `cpu.core_power.clusterN` /
    /// `cpu.cluster_power.clusterN`; a profile in the older form
    /// (`cpu.speeds` with `cpu.active` per speed) is read as one cluster of
    /// `cpus_if_unknown` cores whose per-speed current is `cpu.active`'s.
    pub fn from_profile(p: &PowerProfile, cpus_if_unknown: u32) -> Result<DeviceProfile, Error> {
        let mut notes = Vec::new();
        let mut clusters = Vec::new();
        let item = |n: &str| p.item(n);
        let mut active_ma = item("cpu.active").unwrap_or(0.0);
        if let Some(cores) = p.array("cpu.clusters.cores") {
            let mut first = 0u32;
            for (k, &c) in cores.iter().enumerate() {
                if !((1.0..=1024.0).contains(&c) && c.fract() == 0.0) {
                    return Err(Error::Profile(format!(
                        "cpu.clusters.cores[{k}] = {c} is not a core count"
                    )));
                }
                let speeds = p.array(&format!("cpu.core_speeds.cluster{k}")).unwrap_or_default();
                let power = p.array(&format!("cpu.core_power.cluster{k}")).unwrap_or_default();
                let (speeds, power) = pair_speeds(speeds, power, k, &mut notes)?;
                clusters.push(Cluster {
                    first_cpu: first,
                    cores: c as u32,
                    speeds_khz: speeds,
                    core_ma: power,
                    cluster_ma: item(&format!("cpu.cluster_power.cluster{k}")).unwrap_or(0.0),
                });
                first += c as u32;
            }
        } else if let Some(speeds) = p.array("cpu.speeds") {
            let power = p.array("cpu.active").unwrap_or_default();
            let (speeds, power) = pair_speeds(speeds, power, 0, &mut notes)?;
            notes.push(format!(
                "older profile form (cpu.speeds/cpu.active): one cluster of {cpus_if_unknown} core(s), cpu.active per speed"
            ));
            active_ma = 0.0;
            clusters.push(Cluster {
                first_cpu: 0,
                cores: cpus_if_unknown.max(1),
                speeds_khz: speeds,
                core_ma: power,
                cluster_ma: 0.0,
            });
        } else {
            notes.push("no CPU clusters or speeds: the CPU is not modelled".to_owned());
        }
        let mean = |v: Option<Vec<f64>>| {
            v.filter(|v| !v.is_empty())
                .map(|v| v.iter().sum::<f64>() / v.len() as f64)
        };
        let either = |a: &str, b: &str| item(a).or_else(|| item(b));
        let dev = DeviceProfile {
            clusters,
            suspend_ma: item("cpu.suspend").unwrap_or(0.0),
            idle_ma: either("cpu.idle", "cpu.awake").unwrap_or(0.0),
            active_ma,
            screen_on_ma: item("screen.on"),
            screen_full_ma: item("screen.full"),
            wifi_on_ma: either("wifi.on", "wifi.controller.idle"),
            wifi_rx_ma: either("wifi.active", "wifi.controller.rx"),
            wifi_tx_ma: either("wifi.active", "wifi.controller.tx"),
            radio_active_ma: item("radio.active").or_else(|| mean(p.array("modem.controller.tx"))),
            gps_on_ma: item("gps.on").or_else(|| mean(p.array("gps.signalqualitybased"))),
            battery_mah: item("battery.capacity"),
            voltage_v: NOMINAL_VOLTAGE_V,
            notes,
        };
        for (name, v) in [
            ("cpu.suspend", dev.suspend_ma),
            ("cpu.idle", dev.idle_ma),
            ("cpu.active", dev.active_ma),
        ] {
            if v < 0.0 {
                return Err(Error::Profile(format!("{name} = {v} mA is negative")));
            }
        }
        Ok(dev)
    }

    /// Total number of CPUs the clusters cover.
    pub fn cpu_count(&self) -> u32 {
        self.clusters.iter().map(|c| c.cores).sum()
    }

    /// The cluster of `cpu`.
    pub fn cluster_of(&self, cpu: u32) -> Option<(usize, &Cluster)> {
        self.clusters.iter().enumerate().find(|(_, c)| c.has(cpu))
    }

    /// Current of one running core `cpu` at `khz`, mA.
    pub fn core_ma(&self, cpu: u32, khz: f64) -> Option<f64> {
        self.cluster_of(cpu).map(|(_, c)| c.core_ma_at(khz))
    }

    /// mA → W at the profile's voltage.
    pub fn watts(&self, ma: f64) -> f64 {
        ma * 1e-3 * self.voltage_v
    }
}

fn pair_speeds(
    speeds: Vec<f64>,
    power: Vec<f64>,
    k: usize,
    notes: &mut Vec<String>,
) -> Result<(Vec<f64>, Vec<f64>), Error> {
    if speeds.len() != power.len() {
        notes.push(format!(
            "cluster {k}: {} speeds but {} currents; the shorter list decides",
            speeds.len(),
            power.len()
        ));
    }
    let n = speeds.len().min(power.len());
    let mut pairs: Vec<(f64, f64)> = speeds.into_iter().zip(power).take(n).collect();
    if pairs.iter().any(|p| p.0 <= 0.0 || p.1 < 0.0) {
        return Err(Error::Profile(format!(
            "cluster {k}: a speed is not positive or a current is negative"
        )));
    }
    if pairs.windows(2).any(|w| w[1].0 <= w[0].0) {
        notes.push(format!("cluster {k}: speeds are not rising; sorted"));
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        pairs.dedup_by(|a, b| a.0 == b.0);
    }
    Ok(pairs.into_iter().unzip())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_clusters() -> PowerProfile {
        let mut p = PowerProfile::new("Android");
        p.set_array("cpu.clusters.cores", vec![2.0, 1.0]);
        p.set_array("cpu.core_speeds.cluster0", vec![300_000.0, 1_000_000.0]);
        p.set_array("cpu.core_power.cluster0", vec![10.0, 45.0]);
        p.set_array("cpu.core_speeds.cluster1", vec![500_000.0, 2_000_000.0]);
        p.set_array("cpu.core_power.cluster1", vec![30.0, 180.0]);
        p.set_item("cpu.cluster_power.cluster1", 4.0);
        p.set_item("cpu.idle", 5.0);
        p.set_item("cpu.active", 8.0);
        p.set_item("screen.on", 90.0);
        p.set_item("wifi.controller.idle", 2.0);
        p.set_item("wifi.controller.rx", 120.0);
        p.set_item("wifi.controller.tx", 300.0);
        p.set_array("gps.signalqualitybased", vec![24.0, 6.0]);
        p
    }

    #[test]
    fn clusters_and_components() {
        let d = DeviceProfile::from_profile(&two_clusters(), 8).unwrap();
        assert_eq!(d.cpu_count(), 3);
        assert_eq!(d.cluster_of(2).unwrap().0, 1);
        assert_eq!(d.core_ma(0, 300_000.0), Some(10.0));
        assert_eq!(d.core_ma(1, 650_000.0), Some(27.5), "linear between speeds");
        assert_eq!(d.core_ma(0, 2_000_000.0), Some(45.0), "clamped beyond the last speed");
        assert_eq!(d.core_ma(3, 1.0), None);
        assert_eq!(d.clusters[1].cluster_ma, 4.0);
        assert_eq!((d.wifi_on_ma, d.wifi_tx_ma), (Some(2.0), Some(300.0)));
        assert_eq!(d.gps_on_ma, Some(15.0));
        assert!((d.watts(1000.0) - 3.7).abs() < 1e-12);
    }

    #[test]
    fn older_form_and_bad_values() {
        let mut p = PowerProfile::new("Android");
        p.set_array("cpu.speeds", vec![1_026_000.0, 384_000.0]);
        p.set_array("cpu.active", vec![210.0, 120.0]);
        p.set_item("cpu.awake", 10.0);
        let d = DeviceProfile::from_profile(&p, 4).unwrap();
        assert_eq!(d.clusters[0].cores, 4);
        assert_eq!(d.clusters[0].speeds_khz, vec![384_000.0, 1_026_000.0]);
        assert_eq!(d.idle_ma, 10.0);
        assert_eq!(d.active_ma, 0.0);
        assert!(d.notes.iter().any(|n| n.contains("older")));
        let mut bad = two_clusters();
        bad.set_array("cpu.clusters.cores", vec![2.5]);
        assert!(DeviceProfile::from_profile(&bad, 1).is_err());
    }
}

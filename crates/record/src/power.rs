//! Power sources on Linux, sampled for the energy analysis: the battery
//! fuel gauge (`/sys/class/power_supply`), RAPL energy counters
//! (`/sys/class/powercap`) and hardware monitors (`/sys/class/hwmon`).
//!
//! Each source file is opened once and re-read with `pread` at offset 0
//! (sysfs regenerates an attribute's text on every read from its start), so
//! a sample at 100 Hz costs a few system calls per source. Values are
//! converted to the SI units of [`tracekit_model::power`] and written as
//! counter lines of `context.jsonl`; the battery that the kernel calls
//! `type = Battery` gets the model's canonical names, any other supply its
//! own prefix. Current keeps the sign the driver gave it (the kernel ABI
//! says negative while discharging, many phones report it positive): the
//! energy analysis decides the convention from `status` and the data.
//!
//! RAPL's `energy_uj` wraps at `max_energy_range_uj` (the wrap is recorded
//! with each sample so deltas survive it) and has been readable only by
//! root since Linux 5.10: an unreadable counter is reported as such, never
//! as 0 W.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use tracekit_model::{power, CounterKind};
use tracekit_recording::context_file::{SampleLine, SampleValue};

const MICRO: (f64, f64) = (1.0, 1e6);

/// A power-supply attribute: file, label, unit, kind, scale.
type SupplyAttribute = (&'static str, String, &'static str, CounterKind, (f64, f64));
const ONE: (f64, f64) = (1.0, 1.0);

/// One numeric attribute file read every period.
struct Source {
    label: String,
    unit: &'static str,
    kind: CounterKind,
    /// The file's integer times `scale.0` over `scale.1` is the SI value
    /// (two integers, so µV → V is an exact decimal shift).
    scale: (f64, f64),
    /// Where the counter wraps, in SI units.
    wrap: Option<f64>,
    file: File,
}

/// A text attribute (a battery's `status`).
struct TextSource {
    label: String,
    file: File,
}

/// The power sources found under a `/sys` root, opened and ready to sample.
pub struct PowerProbe {
    sources: Vec<Source>,
    texts: Vec<TextSource>,
    notes: Vec<String>,
    buf: Vec<u8>,
}

fn sorted_dir(p: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn read_text(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok().map(|s| s.trim().to_owned())
}

/// Opens `path` for sampling; a file that exists but cannot be read is
/// noted (with the reason) so the user learns why a source is missing.
fn open(path: &Path, notes: &mut Vec<String>) -> Option<File> {
    if !path.exists() {
        return None;
    }
    match File::open(path) {
        Ok(f) => {
            let mut b = [0u8; 64];
            match f.read_at(&mut b, 0) {
                Ok(_) => Some(f),
                Err(e) => {
                    notes.push(format!("{}: cannot be read ({e})", path.display()));
                    None
                }
            }
        }
        Err(e) => {
            let why = if e.kind() == std::io::ErrorKind::PermissionDenied && path.ends_with("energy_uj") {
                " (RAPL energy counters are readable only by root since Linux 5.10; run as root or \
                 `chmod o+r` the file; the counter is left out rather than reported as 0 W)"
            } else {
                ""
            };
            notes.push(format!("{}: cannot be opened: {e}{why}", path.display()));
            None
        }
    }
}

impl PowerProbe {
    /// Finds every power source under `sys_root` (standing for `/sys`).
    pub fn discover(sys_root: &Path) -> PowerProbe {
        let mut p = PowerProbe {
            sources: Vec::new(),
            texts: Vec::new(),
            notes: Vec::new(),
            buf: vec![0; 128],
        };
        p.power_supplies(&sys_root.join("class/power_supply"));
        p.powercap(&sys_root.join("class/powercap"));
        p.hwmon(&sys_root.join("class/hwmon"));
        p
    }

    /// True when at least one source can be sampled.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty() && self.texts.is_empty()
    }

    /// Sources that exist but could not be read, with the reason.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The labels of the numeric sources, in sampling order.
    pub fn labels(&self) -> Vec<&str> {
        self.sources.iter().map(|s| s.label.as_str()).collect()
    }

    fn add(&mut self, path: &Path, label: String, unit: &'static str, kind: CounterKind, scale: (f64, f64)) -> bool {
        match open(path, &mut self.notes) {
            Some(file) => {
                self.sources.push(Source {
                    label,
                    unit,
                    kind,
                    scale,
                    wrap: None,
                    file,
                });
                true
            }
            None => false,
        }
    }

    fn power_supplies(&mut self, dir: &Path) {
        let mut canonical_taken = false;
        for dev in sorted_dir(dir) {
            let name = dev
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let is_battery = read_text(&dev.join("type")).is_some_and(|t| t.eq_ignore_ascii_case("battery"));
            // The first battery gets the names the energy analysis looks for.
            let canonical = is_battery && !canonical_taken;
            let label = |canon: &str, own: &str| {
                if canonical {
                    canon.to_owned()
                } else {
                    format!("{name} {own}")
                }
            };
            let mut any = false;
            let entries: [SupplyAttribute; 8] = [
                (
                    "voltage_now",
                    label(power::BATTERY_VOLTAGE, "voltage"),
                    power::VOLT,
                    CounterKind::Sampled,
                    MICRO,
                ),
                (
                    "current_now",
                    label(power::BATTERY_CURRENT, "current"),
                    power::AMPERE,
                    CounterKind::Sampled,
                    MICRO,
                ),
                (
                    "power_now",
                    label(power::BATTERY_POWER, "power"),
                    power::WATT,
                    CounterKind::Sampled,
                    MICRO,
                ),
                (
                    "charge_counter",
                    label(power::BATTERY_CHARGE, "charge"),
                    power::MICRO_AMPERE_HOUR,
                    CounterKind::Sampled,
                    ONE,
                ),
                (
                    "charge_now",
                    label(&format!("{} now", power::BATTERY_CHARGE), "charge now"),
                    power::MICRO_AMPERE_HOUR,
                    CounterKind::Sampled,
                    ONE,
                ),
                // energy_now is µWh.
                (
                    "energy_now",
                    label(power::BATTERY_ENERGY, "energy"),
                    power::JOULE,
                    CounterKind::Sampled,
                    (3600.0, 1e6),
                ),
                (
                    "capacity",
                    label(power::BATTERY_CAPACITY, "capacity"),
                    "%",
                    CounterKind::Level,
                    ONE,
                ),
                (
                    "temp",
                    label(power::BATTERY_TEMPERATURE, "temperature"),
                    "°C",
                    CounterKind::Sampled,
                    (1.0, 10.0),
                ),
            ];
            for (file, label, unit, kind, scale) in entries {
                any |= self.add(&dev.join(file), label, unit, kind, scale);
            }
            if let Some(f) = open(&dev.join("status"), &mut self.notes) {
                self.texts.push(TextSource {
                    label: label(power::BATTERY_STATUS, "status"),
                    file: f,
                });
                any = true;
            }
            canonical_taken |= canonical && any;
        }
    }

    fn powercap(&mut self, dir: &Path) {
        for zone in sorted_dir(dir) {
            let energy = zone.join("energy_uj");
            if !energy.exists() {
                continue;
            }
            let zone_name = read_text(&zone.join("name")).unwrap_or_else(|| {
                zone.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
            let dir_name = zone
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let label = format!("rapl {dir_name} {zone_name} energy");
            if self.add(&energy, label, power::JOULE, CounterKind::Cumulative, MICRO) {
                let wrap = read_text(&zone.join("max_energy_range_uj")).and_then(|t| t.parse::<f64>().ok());
                if let Some(s) = self.sources.last_mut() {
                    s.wrap = wrap.map(|w| w / 1e6);
                }
            }
        }
    }

    fn hwmon(&mut self, dir: &Path) {
        for mon in sorted_dir(dir) {
            let chip = read_text(&mon.join("name")).unwrap_or_else(|| {
                mon.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
            for f in sorted_dir(&mon) {
                let file = f
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let Some(stem) = file.strip_suffix("_input") else {
                    continue;
                };
                // power*_input is µW, energy*_input µJ.
                if stem.starts_with("power") {
                    self.add(
                        &f,
                        format!("hwmon {chip} {stem}"),
                        power::WATT,
                        CounterKind::Sampled,
                        MICRO,
                    );
                } else if stem.starts_with("energy") {
                    self.add(
                        &f,
                        format!("hwmon {chip} {stem}"),
                        power::JOULE,
                        CounterKind::Cumulative,
                        MICRO,
                    );
                }
            }
        }
    }

    /// Reads every source once, stamping all values with `t_ns` (taken by
    /// the caller before this call), and appends one line per value.
    pub fn sample(&mut self, t_ns: u64, out: &mut Vec<SampleLine>) {
        for s in &self.sources {
            let Some(text) = read_at0(&s.file, &mut self.buf) else {
                continue;
            };
            let Ok(raw) = text.trim().parse::<i64>() else { continue };
            out.push(SampleLine {
                mono_ns: t_ns,
                label: s.label.clone(),
                unit: Some(s.unit.to_owned()),
                value: SampleValue::Double(raw as f64 * s.scale.0 / s.scale.1),
                counter: Some(s.kind),
                wrap: s.wrap,
            });
        }
        for s in &self.texts {
            let Some(text) = read_at0(&s.file, &mut self.buf) else {
                continue;
            };
            out.push(SampleLine {
                mono_ns: t_ns,
                label: s.label.clone(),
                unit: None,
                value: SampleValue::Text(text.trim().to_owned()),
                counter: None,
                wrap: None,
            });
        }
    }
}

fn read_at0<'a>(f: &File, buf: &'a mut [u8]) -> Option<&'a str> {
    let n = f.read_at(buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()
}

/// The line a sample becomes in the kernel's trace buffer when written to
/// `trace_marker`: an atrace counter, `C|pid|name|value`. Text values are
/// not counters and give `None`.
pub fn marker_line(pid: u32, l: &SampleLine) -> Option<String> {
    match l.value {
        SampleValue::Double(v) => Some(format!("C|{pid}|{}|{v}\n", l.label)),
        SampleValue::Long(v) => Some(format!("C|{pid}|{}|{v}\n", l.label)),
        SampleValue::Text(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn finds_and_converts_every_kind_of_source() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        write(r, "class/power_supply/AC/type", "Mains\n");
        write(r, "class/power_supply/AC/voltage_now", "5000000\n");
        write(r, "class/power_supply/BAT0/type", "Battery\n");
        write(r, "class/power_supply/BAT0/voltage_now", "4380937\n");
        write(r, "class/power_supply/BAT0/current_now", "-530056\n");
        write(r, "class/power_supply/BAT0/charge_counter", "2030954\n");
        write(r, "class/power_supply/BAT0/energy_now", "1000\n");
        write(r, "class/power_supply/BAT0/temp", "312\n");
        write(r, "class/power_supply/BAT0/status", "Discharging\n");
        write(r, "class/powercap/intel-rapl:0/name", "package-0\n");
        write(r, "class/powercap/intel-rapl:0/energy_uj", "123456\n");
        write(r, "class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
        write(r, "class/hwmon/hwmon3/name", "ina3221\n");
        write(r, "class/hwmon/hwmon3/power1_input", "1500000\n");
        write(r, "class/hwmon/hwmon3/in1_input", "5000\n");
        let mut p = PowerProbe::discover(r);
        let mut lines = Vec::new();
        p.sample(42, &mut lines);
        fn get<'a>(lines: &'a [SampleLine], l: &str) -> &'a SampleLine {
            lines
                .iter()
                .find(|x| x.label == l)
                .unwrap_or_else(|| panic!("{l}: {lines:?}"))
        }
        assert_eq!(get(&lines, "battery voltage").value, SampleValue::Double(4.380937));
        assert_eq!(get(&lines, "battery current").value, SampleValue::Double(-0.530056));
        assert_eq!(get(&lines, "battery charge").value, SampleValue::Double(2030954.0));
        assert_eq!(get(&lines, "battery energy").value, SampleValue::Double(3.6));
        assert_eq!(get(&lines, "battery temperature").value, SampleValue::Double(31.2));
        assert_eq!(
            get(&lines, "battery status").value,
            SampleValue::Text("Discharging".into())
        );
        assert_eq!(get(&lines, "AC voltage").value, SampleValue::Double(5.0));
        let rapl = get(&lines, "rapl intel-rapl:0 package-0 energy");
        assert_eq!(rapl.counter, Some(CounterKind::Cumulative));
        assert_eq!(rapl.wrap, Some(262143.32885));
        assert_eq!(get(&lines, "hwmon ina3221 power1").value, SampleValue::Double(1.5));
        assert!(lines.iter().all(|l| l.mono_ns == 42));
        assert!(!lines.iter().any(|l| l.label.contains("in1")));
        // Values are re-read from offset 0 each time.
        write(r, "class/power_supply/BAT0/voltage_now", "4100000\n");
        lines.clear();
        p.sample(43, &mut lines);
        assert_eq!(get(&lines, "battery voltage").value, SampleValue::Double(4.1));
        assert_eq!(
            marker_line(7, get(&lines, "battery voltage")).unwrap(),
            "C|7|battery voltage|4.1\n"
        );
        assert_eq!(marker_line(7, get(&lines, "battery status")), None);
    }

    #[test]
    fn an_unreadable_rapl_counter_is_explained_not_zero() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        write(r, "class/powercap/intel-rapl:0/energy_uj", "5\n");
        let f = r.join("class/powercap/intel-rapl:0/energy_uj");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
        let p = PowerProbe::discover(r);
        // Root reads it anyway; anyone else gets the explanation.
        if std::fs::read(&f).is_err() {
            assert!(p.is_empty());
            assert!(
                p.notes()[0].contains("only by root since Linux 5.10"),
                "{:?}",
                p.notes()
            );
        } else {
            assert_eq!(p.labels().len(), 1);
        }
    }

    #[test]
    fn no_sources_is_empty() {
        let d = tempfile::tempdir().unwrap();
        let p = PowerProbe::discover(d.path());
        assert!(p.is_empty());
        assert!(p.notes().is_empty());
    }
}
